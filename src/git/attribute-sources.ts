import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { quoteName } from "../text/terminal.ts";
import { git } from "./run.ts";

/**
 * Attributes that change what git hashes for a file: a `filter` driver's
 * clean command, `ident`, end-of-line and encoding conversion. Committed in
 * `.gitattributes` they are part of the tree under test; set from outside
 * it — `$GIT_COMMON_DIR/info/attributes` or the user's global attributes
 * file — they can make a file whose bytes differ from the commit hash to
 * the committed blob, so `git status` calls it clean. The gate refuses
 * while such a source assigns one, naming the file.
 */
const TRANSFORMING = new Set(["filter", "ident", "text", "eol", "crlf", "working-tree-encoding"]);

export async function attributesFromOutsideTheTree(commonDir: string, root: string, env: Readonly<Record<string, string | undefined>>): Promise<string[]> {
	const configured = await git(["config", "--type=path", "--get", "core.attributesFile"], root);
	const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, "git/attributes") : join(env.HOME ?? homedir(), ".config/git/attributes");
	const sources = [join(commonDir, "info/attributes"), configured.exitCode === 0 && configured.stdout.trim() ? configured.stdout.trim() : xdg];
	const found = await Promise.all(
		sources.map(async (path) => {
			const text = await readFile(path, "utf8").catch(() => "");
			const names = transformingAttributes(text);
			return names.length > 0 ? `${quoteName(path)} sets ${names.map((name) => `\`${name}\``).join(", ")}` : null;
		}),
	);
	return found.filter((line): line is string => line !== null);
}

/** The transforming attributes a gitattributes text sets (not unsets: `-text` and `!eol` convert nothing). */
export function transformingAttributes(text: string): string[] {
	const names = new Set<string>();
	for (const raw of text.split(/\r?\n/)) {
		const line = raw.trim();
		if (line === "" || line.startsWith("#")) continue;
		// The first field is the pattern (or `[attr]name` for a macro); attributes follow.
		const [, ...attributes] = line.split(/\s+/);
		for (const attribute of attributes) {
			if (attribute.startsWith("-") || attribute.startsWith("!")) continue;
			const name = attribute.split("=")[0] ?? "";
			if (TRANSFORMING.has(name)) names.add(name);
		}
	}
	return [...names].sort();
}
