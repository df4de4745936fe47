/**
 * Findings name a file the way the tool printed it: relative to the folder
 * the tool ran in. A job `cd web && tsc` prints `src/sum.ts`, a workspace
 * script (`npm test -w packages/api`) `test/a.test.ts`, and `go test` the bare
 * `calc_test.go` of a package's folder; none of them names a file from the
 * repository root, where a person clicks `file:line` in a terminal and an
 * agent opens it. So, after a failed job's findings are read, a relative path
 * that names nothing at the root is looked up:
 *
 * 1. under each folder the command changes into (a `cd DIR &&`, `-w DIR`,
 *    `--workspace DIR`, `--cwd DIR`, `--prefix DIR`, `-C DIR`), when exactly
 *    one of them holds it (a stat, no git) — tried first, since a tool that ran
 *    there printed paths from there even when the root has a same-named file;
 * 2. as is, when the root holds it;
 * 3. among the repository's files (tracked, and untracked ones not ignored:
 *    `git ls-files`, read once per gate and only when some finding gets this
 *    far): the one path ending in `/` + the printed path, or, when several do,
 *    the one under a folder the command changes into.
 *
 * Anything else stays as printed: a guess that names the wrong file is worse
 * than a path a person can still read. An absolute path inside the checkout
 * (under its real path too: a tool may print `/private/var/…` for `/var/…`)
 * becomes relative; one outside stays as it is.
 */
import { realpath } from "node:fs/promises";
import { posix } from "node:path";
import type { Diagnostic } from "../contract/envelope.ts";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import { exists } from "../platform/files.ts";
import { parseCommands } from "../text/shell-words.ts";
import { quoteName } from "../text/terminal.ts";

/** The programs that work in another folder given a flag, and those flags: any other program's `-C` or `-w` means something else (`grep -C 3`). */
const FOLDER_FLAGS: Readonly<Record<string, readonly string[]>> = {
	npm: ["-w", "--workspace", "--prefix"],
	pnpm: ["-C", "--dir", "--prefix"],
	yarn: ["--cwd"],
	bun: ["--cwd"],
	make: ["-C", "--directory"],
	git: ["-C"],
	go: ["-C"],
};
/** Words that change the shell's folder for the commands after them. */
const CHANGE_FOLDER = new Set(["cd", "pushd"]);

export interface FindingPaths {
	/** The findings with each `file` named from the repository root where that is known for sure. */
	resolve(findings: readonly Diagnostic[], command: string): Promise<Diagnostic[]>;
}

/** One per gate run: the repository's file list is read at most once, and only if a finding needs it. */
export function findingPaths(root: string): FindingPaths {
	let files: Promise<FileIndex> | undefined;
	let realRoot: Promise<string> | undefined;
	const context: Lookup = {
		root,
		realRoot: () => (realRoot ??= realpath(root).catch(() => root)),
		files: () => (files ??= listFiles(root)),
	};
	return {
		async resolve(findings, command) {
			if (!findings.some((finding) => finding.file !== undefined)) return [...findings];
			const folders = commandFolders(command, root);
			const out: Diagnostic[] = [];
			for (const finding of findings) {
				if (finding.file === undefined) {
					out.push(finding);
					continue;
				}
				const file = await fromRoot(finding.file, folders, context);
				out.push(file === finding.file ? finding : { ...finding, file });
			}
			return out;
		},
	};
}

interface Lookup {
	root: string;
	realRoot: () => Promise<string>;
	files: () => Promise<FileIndex>;
}

async function fromRoot(shown: string, folders: readonly string[], lookup: Lookup): Promise<string> {
	// A quoted name (a quote, a control character) is shown for safety, not for a click: left alone.
	if (shown.startsWith('"')) return shown;
	if (shown.startsWith("/")) {
		const real = (await lookup.realRoot()).replace(/\/+$/, "");
		return shown.startsWith(`${real}/`) ? quoteName(shown.slice(real.length + 1)) : shown;
	}
	const under = await existingIn(folders, shown, lookup.root);
	if (under.length === 1 && under[0] !== undefined) return quoteName(under[0]);
	const path = posix.normalize(shown);
	if (path === "." || path.startsWith("../") || path === "..") return shown;
	if (await exists(`${lookup.root}/${path}`)) return shown;
	const index = await lookup.files();
	const ending = `/${path}`;
	const found = (index.get(posix.basename(path)) ?? []).filter((file) => file.endsWith(ending));
	if (found.length === 1 && found[0] !== undefined) return quoteName(found[0]);
	const preferred = found.filter((file) => folders.some((folder) => file.startsWith(`${folder}/`)));
	return preferred.length === 1 && preferred[0] !== undefined ? quoteName(preferred[0]) : shown;
}

/** `folder/shown` for each folder that holds it (a printed `../lib/a.ts` may lead out of one folder into another). */
async function existingIn(folders: readonly string[], shown: string, root: string): Promise<string[]> {
	const found = new Set<string>();
	for (const folder of folders) {
		const path = posix.normalize(`${folder}/${shown}`);
		if (path.startsWith("../") || path === ".." || path === ".") continue;
		if (await exists(`${root}/${path}`)) found.add(path);
	}
	return [...found];
}

/** The repository's files by their last segment, so a finding compares against its few namesakes, not every path. */
type FileIndex = Map<string, string[]>;

/**
 * Tracked files and untracked ones no ignore rule hides (a test file not yet
 * added is still the one that failed); empty when git cannot say, which
 * leaves every path as printed.
 */
async function listFiles(root: string): Promise<FileIndex> {
	const index: FileIndex = new Map();
	const listed = await git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root);
	if (listed.exitCode !== 0) return index;
	// A conflicted path is listed once per stage: a Set keeps it one candidate.
	for (const file of new Set(nulSeparated(listed.stdout))) {
		const name = posix.basename(file);
		const same = index.get(name);
		if (same) same.push(file);
		else index.set(name, [file]);
	}
	return index;
}

/**
 * The folders, relative to the root, that a shell command changes into: a
 * `cd DIR` (each one from the folder the ones before it led to; one in a
 * subshell ends with it) and the value of a folder flag of a program known
 * to take one (`npm -w DIR`, `bun --cwd=DIR`, `make -C DIR`…). Only what the
 * words say: a folder named by a variable, `~` or a glob, or one outside
 * the root, is none. Read, never run.
 */
export function commandFolders(command: string, root: string): string[] {
	const folders: string[] = [];
	// The folder at each open subshell, the command line's own first.
	const at: string[] = [""];
	const add = (value: string, current: string): string | null => {
		const folder = folderOf(value, current, root);
		if (folder !== null && folder !== "" && !folders.includes(folder)) folders.push(folder);
		return folder;
	};
	for (const { words, closed, opened } of parseCommands(command)) {
		for (let n = 0; n < closed && at.length > 1; n++) at.pop();
		for (let n = 0; n < opened; n++) at.push(at.at(-1) ?? "");
		const current = at.at(-1) ?? "";
		let index = 0;
		while (/^[A-Za-z_]\w*=/.test(words[index] ?? "")) index++; // `CI=1 npm test`: still the command's start
		const program = posix.basename(words[index] ?? "");
		const rest = words.slice(index + 1);
		if (CHANGE_FOLDER.has(program)) {
			// `cd -P web`: its options are not the folder.
			const target = rest.find((word) => !word.startsWith("-"));
			const folder = target === undefined ? null : add(target, current);
			if (folder !== null) at[at.length - 1] = folder;
			continue;
		}
		const flags = FOLDER_FLAGS[program];
		if (!flags) continue;
		for (let i = 0; i < rest.length; i++) {
			const word = rest[i] ?? "";
			const inline = /^(--[a-z]+)=(.+)$/.exec(word);
			if (inline?.[1] && inline[2] && flags.includes(inline[1])) add(inline[2], current);
			else if (flags.includes(word) && rest[i + 1] !== undefined && !rest[i + 1]?.startsWith("-")) add(rest[++i] ?? "", current);
		}
	}
	return folders;
}

/** A word naming a folder, relative to the root; "" for the root itself, null when it cannot be known or lies outside. */
function folderOf(value: string, current: string, root: string): string | null {
	if (value === "" || /[$`~*?[\]{}]/.test(value) || value === "-") return null;
	let path: string;
	if (value.startsWith("/")) {
		const base = root.replace(/\/+$/, "");
		if (value !== base && !value.startsWith(`${base}/`)) return null;
		path = posix.normalize(value.slice(base.length + 1) || ".");
	} else {
		path = posix.normalize(current === "" ? value : `${current}/${value}`);
	}
	if (path === "..") return null;
	if (path.startsWith("../")) return null;
	return path === "." ? "" : path.replace(/\/+$/, "");
}
