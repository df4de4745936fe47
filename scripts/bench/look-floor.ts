/**
 * The least a look at a checkout can cost on discern's runtime (the scale
 * section's floor, issue 23): a compiled Bun program started, the tracked
 * paths read from a file (discern reads them from its kept facts), one stat
 * per tracked file the way the evidence takes it (statx into one buffer,
 * stat-key.ts), and one listing per tracked folder (what finds an untracked
 * file). No git, no hashing, no seal, no configuration: whatever discern's
 * own look at an unchanged tree adds is above this.
 *
 * `look-floor ROOT LIST`: LIST holds the tracked paths, NUL-separated.
 */
import { readdirSync, readFileSync } from "node:fs";
import { lstatKeys } from "../../src/git/evidence/stat-key.ts";

const [root, list] = process.argv.slice(2);
if (!root || !list) throw new Error("usage: look-floor ROOT LIST");
const paths = readFileSync(list, "utf8")
	.split("\0")
	.filter((path) => path !== "");
const keys = lstatKeys(root, paths);
const folders = new Set([""]);
for (const path of paths) for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) folders.add(path.slice(0, slash));
let entries = 0;
for (const folder of folders) entries += readdirSync(folder === "" ? root : `${root}/${folder}`, { withFileTypes: true }).length;
if (keys.includes("absent") || entries < paths.length) throw new Error("the floor found files missing: not the tree it was given");
