import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { git } from "../git/run.ts";
import { readRegularFile, WriteDeniedError, writeFileAtomic } from "../platform/files.ts";
import type { ProposedIgnore } from "./detect.ts";

/**
 * The root .gitignore lines setup proposes: folders the proposed jobs write
 * (outputs.ts) that the repository's ignore rules do not ignore yet, and
 * adding them without touching a byte of what is there.
 */

export const IGNORE_FILE = ".gitignore";

/** A .gitignore larger than this is not one a person keeps; setup does not add to it. */
const MAX_IGNORE_BYTES = 1024 * 1024;

/**
 * The proposed lines git does not already honour: a line is needed when any
 * of its probes (files the tool writes) is not ignored by a `.gitignore`
 * rule. Only `.gitignore` files count, as in the gate's look at the tree:
 * `.git/info/exclude` and a global excludes file are this checkout's own,
 * and a tool's own `.gitignore` inside the folder it writes (pytest's, Ruff's
 * and mypy's say `*`) is exactly the uncommitted file the line is for.
 * Asked with --no-index (the rules, not what happens to be tracked) and
 * --verbose (which rule decided, and from which file).
 */
export async function missingIgnores(root: string, proposed: readonly ProposedIgnore[]): Promise<ProposedIgnore[]> {
	const probes = [...new Set(proposed.flatMap((ignore) => ignore.probes))];
	if (probes.length === 0) return [];
	const asked = await git(["check-ignore", "--no-index", "--verbose", "--non-matching", "-z", "--stdin"], root, { input: `${probes.join("\0")}\0` });
	// 0: some are ignored, 1: none is. Anything else is no answer: propose every line (one line too many is harmless, one too few a red gate).
	if (asked.exitCode !== 0 && asked.exitCode !== 1) return [...proposed];
	const ignored = new Set<string>();
	const fields = asked.stdout.split("\0");
	for (let index = 0; index + 3 < fields.length; index += 4) {
		const [source = "", , pattern = "", path = ""] = fields.slice(index, index + 4);
		if (source !== "" && !pattern.startsWith("!") && isSharedRule(source, path, proposed)) ignored.add(path);
	}
	return proposed.filter((ignore) => ignore.probes.some((probe) => !ignored.has(probe)));
}

/** A rule from a `.gitignore` in the work tree, outside the folder the probe stands for. */
function isSharedRule(source: string, path: string, proposed: readonly ProposedIgnore[]): boolean {
	// git names a work-tree .gitignore relative to the root, info/exclude as `.git/info/exclude` (or absolute), a global file absolutely.
	if (source.startsWith("/") || source.startsWith("../") || !(source === IGNORE_FILE || source.endsWith(`/${IGNORE_FILE}`))) return false;
	const folder = outputFolder(path, proposed);
	return folder === null || !source.startsWith(`${folder}/`);
}

/** `service/.pytest_cache` for the probe `service/.pytest_cache/v/cache/nodeids`: where the line's folder is in the path. */
function outputFolder(path: string, proposed: readonly ProposedIgnore[]): string | null {
	const ignore = proposed.find((candidate) => candidate.probes.includes(path));
	const name = ignore?.line
		.split("/")
		.filter((part) => part !== "")
		.pop();
	if (!name) return null;
	const segments = path.split("/");
	const at = segments.indexOf(name);
	return at === -1 ? null : segments.slice(0, at + 1).join("/");
}

/** What setup can do with the root .gitignore: create it, append to it, or nothing (a link, a folder, a huge file). */
export async function ignoreFileState(root: string): Promise<"absent" | "file" | "other"> {
	const found = await lstat(join(root, IGNORE_FILE)).catch(() => null);
	if (!found) return "absent";
	return found.isFile() && found.size <= MAX_IGNORE_BYTES ? "file" : "other";
}

/** Why the lines are there, above them in the file. */
const HEADER = "# Written by the tools discern's jobs run (added by discern setup):";

/**
 * The root .gitignore with `lines` appended: every byte already there kept
 * (and its line endings: CRLF when it uses them), a newline added first
 * when its last line has none, a blank line and a comment before the lines.
 */
export function appendedIgnoreFile(existing: Uint8Array | null, lines: readonly string[]): Uint8Array {
	const before = existing === null ? Buffer.alloc(0) : Buffer.from(existing);
	const text = before.toString("latin1");
	const eol = text.includes("\r\n") ? "\r\n" : "\n";
	const lead = text === "" ? "" : `${text.endsWith("\n") ? "" : eol}${eol}`;
	const added = `${lead}${[HEADER, ...lines].join(eol)}${eol}`;
	return Buffer.concat([before, Buffer.from(added, "utf8")]);
}

/** Append `lines` to the root .gitignore (created when absent), atomically, keeping its mode. */
export async function appendIgnores(root: string, lines: readonly string[]): Promise<void> {
	if (lines.length === 0) return;
	const path = join(root, IGNORE_FILE);
	const existing = readRegularFile(path, MAX_IGNORE_BYTES);
	// Never a fresh file over one that is there but could not be read: its rules would be lost.
	if (existing === null && (await lstat(path).catch(() => null)))
		throw new WriteDeniedError(`${IGNORE_FILE} is not a regular file of at most 1 MiB, so setup does not add to it`);
	await writeFileAtomic(root, IGNORE_FILE, appendedIgnoreFile(existing, lines), { keepMode: true });
}
