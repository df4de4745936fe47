import { lstat, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { CONFIG_FILE } from "../../config/load.ts";
import { git } from "../../git/run.ts";
import { MAP_README_PATH } from "../../pages/map-skeleton.ts";
import { exists, isInside } from "../../platform/files.ts";
import { stateDir } from "../../state/dir.ts";
import { plural } from "../../text/plural.ts";
import type { UninstallData } from "./schema.ts";

export type Listed = UninstallData["files"][number];

/** A state entry, with where it is on disk (`path` is how it is shown). */
export interface StateEntry extends Listed {
	full: string;
}

/**
 * discern's runtime state in the shared git dir (`<commonDir>/discern/`,
 * the main checkout's own state folder too; uninstall refuses while a
 * linked worktree, with a state folder of its own, exists): what goes and
 * what stays. Everything discern can make again goes — the Proof marker,
 * the key that seals it (nothing kept is sealed with it: notes are git
 * objects), the last runs and their job logs, leftovers. What is a record
 * stays: the logbook (metadata of every run, never contents), the accept
 * journals (an unfinished landing finishes from them) and the files an undo
 * or a drop moved aside (`kept/`: a person's bytes). The locks this run
 * holds go when it ends.
 */
const KEPT: Readonly<Record<string, string>> = {
	logbook: "the run history (metadata only): a record, kept",
	accept: "accept journals: an unfinished landing finishes from them, kept",
	kept: "files an undo or a drop moved aside (state/kept.ts): yours, kept",
};
const HELD = new Set(["lock", "repository.lock"]);
const NOTES: Readonly<Record<string, string>> = {
	"proof.json": "the Proof marker of this checkout",
	"proof-key": "the key that seals Proof markers (they go too)",
	"last-run.json": "the last gate run",
	"last-done.json": "the last done verdict",
	runs: "job logs of the last runs",
	"running-jobs.json": "a record of running jobs",
	"generated.json": "what refresh last wrote to AGENTS.md here",
	resources: "resource ledgers: none left",
};

/** The state folder is a link or not a folder: uninstall never follows it out of the repository. */
export interface StateRefusal {
	reason: string;
	fix: string;
}

/**
 * Only the names discern writes go (NOTES), each only as the kind discern
 * makes (a file, or the `runs`/`resources` folder; `resources` only when
 * empty); anything else found there is listed as kept.
 */
export async function planState(root: string, commonDir: string): Promise<StateEntry[] | StateRefusal> {
	const dir = stateDir(commonDir);
	const folder = await lstat(dir).catch(() => null);
	if (!folder) return [];
	if (folder.isSymbolicLink() || !folder.isDirectory()) {
		return {
			reason: `${shown(root, dir)} is ${folder.isSymbolicLink() ? "a symbolic link" : "not a folder"}`,
			fix: `discern never follows its state folder elsewhere: look at ${dir} and remove it by hand if it is discern's.`,
		};
	}
	const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => !HELD.has(name)).sort();
	return Promise.all(
		names.map(async (name): Promise<StateEntry> => {
			const full = join(dir, name);
			const entry = { full, path: shown(root, full), kind: "state" as const };
			const kept = KEPT[name];
			if (kept) return { ...entry, action: "keep", note: kept };
			const note = NOTES[name];
			const stat = await lstat(full).catch(() => null);
			const folderName = name === "runs" || name === "resources";
			const shaped = stat !== null && !stat.isSymbolicLink() && (folderName ? stat.isDirectory() : stat.isFile());
			if (!note || !shaped) return { ...entry, action: "keep", note: "not a file discern writes: kept" };
			if (name === "resources" && (await readdir(full)).length > 0)
				return { ...entry, action: "keep", note: "resource folder with files discern did not write: kept" };
			return { ...entry, action: "delete", note };
		}),
	);
}

/** What uninstall keeps on purpose and says so: discern.toml, the instruction sources, the map, notes and refs. */
export async function planKept(root: string, sources: readonly string[]): Promise<Listed[]> {
	const kept: Listed[] = [];
	if (await exists(join(root, CONFIG_FILE))) kept.push({ path: CONFIG_FILE, kind: "config", action: "keep", note: "yours: `git rm discern.toml` removes it" });
	for (const source of sources) {
		if (await exists(join(root, source))) kept.push({ path: source, kind: "source", action: "keep", note: "an instruction source: yours" });
	}
	const map = MAP_README_PATH.slice(0, MAP_README_PATH.lastIndexOf("/") + 1);
	if (await exists(join(root, map))) kept.push({ path: map, kind: "map", action: "keep", note: "the map: yours" });
	const refs = await git(["for-each-ref", "--format=%(refname)", "refs/notes/discern", "refs/discern/"], root);
	const names = refs.exitCode === 0 ? refs.stdout.split("\n").filter((line) => line !== "") : [];
	if (names.includes("refs/notes/discern")) kept.push({ path: "refs/notes/discern", kind: "refs", action: "keep", note: "the Proofs of landed work" });
	const recovery = names.filter((name) => name.startsWith("refs/discern/"));
	if (recovery.length > 0)
		kept.push({
			path: "refs/discern/",
			kind: "refs",
			action: "keep",
			note: `${plural(recovery.length, "saved tip")} of dropped work`,
		});
	return kept;
}

/** Relative to the checkout when the git dir is inside it (`.git/discern/runs`), else absolute. */
function shown(root: string, path: string): string {
	return isInside(root, path) ? relative(root, path) : path;
}
