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
import { lstat, realpath } from "node:fs/promises";
import { posix } from "node:path";
import type { Diagnostic } from "../contract/envelope.ts";
import { git } from "../git/run.ts";
import { quoteName } from "../text/terminal.ts";

/** Flags that make a command (npm, yarn, bun, make, git, go) work in another folder. */
const FOLDER_FLAGS = new Set(["-w", "--workspace", "--cwd", "--prefix", "-C"]);
/** Words that change the shell's folder for the commands after them. */
const CHANGE_FOLDER = new Set(["cd", "pushd"]);
/** Where the command words end: `&&`, `||`, `;`, `|`, `&`, parentheses, newlines. */
const OPERATOR = /^(?:&&|\|\||[;|&()\n])$/;

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
	if (await exists(lookup.root, path)) return shown;
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
		if (await exists(root, path)) found.add(path);
	}
	return [...found];
}

async function exists(root: string, path: string): Promise<boolean> {
	try {
		await lstat(`${root}/${path}`);
		return true;
	} catch {
		return false;
	}
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
	for (const file of new Set(listed.stdout.split("\0"))) {
		if (file === "") continue;
		const name = posix.basename(file);
		const same = index.get(name);
		if (same) same.push(file);
		else index.set(name, [file]);
	}
	return index;
}

/**
 * The folders, relative to the root, that a shell command changes into: a
 * `cd DIR` at the start of a command (each one from the folder the ones
 * before it led to) and the value of a folder flag (`-w DIR`,
 * `--workspace=DIR`…). Only what the words say: a folder named by a variable,
 * `~` or a glob, or one outside the root, is none. Read, never run.
 */
export function commandFolders(command: string, root: string): string[] {
	const words = shellWords(command);
	const folders: string[] = [];
	let current = "";
	const outer: string[] = []; // the folder before each open `(`: a subshell's `cd` ends with it
	let atStart = true;
	const add = (value: string | undefined): string | null => {
		const folder = value === undefined ? null : folderOf(value, current, root);
		if (folder !== null && folder !== "" && !folders.includes(folder)) folders.push(folder);
		return folder;
	};
	for (let i = 0; i < words.length; i++) {
		const word = words[i] ?? "";
		if (OPERATOR.test(word)) {
			if (word === "(") outer.push(current);
			if (word === ")") current = outer.pop() ?? current;
			atStart = true;
			continue;
		}
		if (atStart && /^[A-Za-z_]\w*=/.test(word)) continue; // `CI=1 npm test`: still the command's start
		if (atStart && CHANGE_FOLDER.has(word)) {
			const next = words[i + 1];
			if (next !== undefined && !OPERATOR.test(next)) {
				i++;
				const folder = add(next);
				if (folder !== null) current = folder;
			}
			atStart = false;
			continue;
		}
		atStart = false;
		if (FOLDER_FLAGS.has(word)) {
			const next = words[i + 1];
			if (next !== undefined && !OPERATOR.test(next) && !next.startsWith("-")) {
				i++;
				add(next);
			}
			continue;
		}
		const inline = /^(--workspace|--cwd|--prefix)=(.+)$/.exec(word);
		if (inline) add(inline[2]);
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

/** A shell command cut into words and operators, quotes removed; enough to read folders from, nothing more. */
function shellWords(command: string): string[] {
	const words: string[] = [];
	let word = "";
	let inWord = false;
	const end = () => {
		if (inWord) words.push(word);
		word = "";
		inWord = false;
	};
	for (let i = 0; i < command.length; i++) {
		const char = command[i] ?? "";
		if (char === "'" || char === '"') {
			const close = command.indexOf(char, i + 1);
			if (close < 0) break; // an unclosed quote: the rest is no folder
			word += command.slice(i + 1, close);
			inWord = true;
			i = close;
		} else if (char === "\\" && i + 1 < command.length) {
			word += command[++i];
			inWord = true;
		} else if (char === "\n" || char === ";" || char === "(" || char === ")") {
			end();
			words.push(char);
		} else if (char === "&" || char === "|") {
			end();
			const double = command[i + 1] === char;
			words.push(double ? char + char : char);
			if (double) i++;
		} else if (/\s/.test(char)) end();
		else {
			word += char;
			inWord = true;
		}
	}
	end();
	return words;
}
