import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { nulSeparated } from "../nul-list.ts";
import type { git } from "../run.ts";
import { IGNORED_BY_GITIGNORE } from "./outside-the-tree.ts";

/**
 * What git's listing of untracked files never shows, yet a job can open by
 * name: a FIFO, socket or device (git's walk skips them: a FIFO named
 * `GNUmakefile` or `.cargo/config.toml`, fed by a process outside the gate,
 * is what make or cargo reads), and a `.git` file or folder below the root
 * (git never looks inside one, and a job's git run there takes its config).
 * Looked for in every tracked folder and in every folder git lists nothing
 * for that the committed rules do not ignore (a new folder holding only such
 * an entry, or only ignored files). Null when git could not tell which of
 * those folders are ignored.
 *
 * `folders`: the tracked folders ("" for the root); `submodules`: the
 * submodules' paths (their insides are their own evidence's);
 * `ignored`: which of some untracked folders the committed rules ignore;
 * `noticed`: told of every `.gitignore` and `.gitattributes` met on the way
 * (the folders walked are all those git reads such files in, but ignored ones);
 * `replaced`: told of every tracked folder its parent lists as something
 * else than a folder (a symbolic link, a file): its files are read elsewhere.
 */
export async function unlistedEntries(
	root: string,
	folders: ReadonlySet<string>,
	submodules: ReadonlySet<string>,
	ignored: (candidates: readonly string[]) => Promise<Set<string> | null>,
	noticed?: (path: string) => void,
	replaced?: (folder: string) => void,
): Promise<string[] | null> {
	const found: string[] = [];
	const candidates: string[] = [];
	// Each tracked folder's tracked sub-folders by name: one listed as anything but a folder was replaced (a link, a file).
	const subfolders = new Map<string, Set<string>>();
	for (const folder of folders) {
		if (folder === "") continue;
		const slash = folder.lastIndexOf("/");
		const parent = slash < 0 ? "" : folder.slice(0, slash);
		const names = subfolders.get(parent) ?? new Set<string>();
		names.add(folder.slice(slash + 1));
		subfolders.set(parent, names);
	}
	// Synchronous, one folder after another: a listing is one system call, and a hop through the file-system threads
	// per folder costs more than the listing (a look at a large tree lists thousands).
	for (const folder of folders) {
		const items = listed(root, folder);
		if (typeof items === "string") {
			found.push(items);
			continue;
		}
		const tracked = subfolders.get(folder);
		// Every entry of every tracked folder passes here: a plain file, by far the most of them, costs no path and no object.
		for (const item of items) {
			const name = item.name;
			const kind = kindOf(item);
			if (replaced && kind !== "folder" && tracked?.has(name)) replaced(folder === "" ? name : `${folder}/${name}`);
			if (kind === "file" && name !== ".git" && !(noticed && RULE_FILES.has(name))) continue;
			const path = folder === "" ? name : `${folder}/${name}`;
			if (noticed && RULE_FILES.has(name)) noticed(path);
			if (name === ".git") {
				if (folder !== "") found.push(path);
			} else if (kind === "strange") found.push(path);
			else if (kind === "folder" && !folders.has(path) && !submodules.has(path)) candidates.push(path);
		}
	}
	if (candidates.length > 0) {
		const skipped = await ignored(candidates);
		if (skipped === null) return null;
		// Everything inside is ignored, special or nothing (git listed no file there, or listed it already): looked through whole.
		for (const folder of candidates) if (!skipped.has(folder)) found.push(...strangeBelow(root, folder, noticed));
	}
	return found.sort();
}

/** Special entries and `.git` entries anywhere below `folder`, and what could not be looked through. */
function strangeBelow(root: string, folder: string, noticed?: (path: string) => void): string[] {
	const found: string[] = [];
	const pending = [folder];
	for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
		const items = listed(root, next);
		if (typeof items === "string") {
			found.push(items);
			continue;
		}
		for (const item of items) {
			const kind = kindOf(item);
			const path = `${next}/${item.name}`;
			if (noticed && RULE_FILES.has(item.name)) noticed(path);
			if (item.name === ".git" || kind === "strange") found.push(path);
			else if (kind === "folder") pending.push(path);
		}
	}
	return found;
}

/** `strange`: a FIFO, socket or device, or a name that is not UTF-8 (git cannot be asked of it, nor can it be walked by name). */
function kindOf(item: Dirent): "file" | "folder" | "strange" {
	// A name that is not UTF-8 reads with U+FFFD in it (and cannot be opened by that string): strange, as is a real U+FFFD.
	if (item.name.includes("\uFFFD")) return "strange";
	return item.isDirectory() ? "folder" : item.isFile() || item.isSymbolicLink() ? "file" : "strange";
}

/**
 * A folder's entries, or the change to report when it cannot be read (too
 * long a path, no permission): never taken for an empty one. A folder gone
 * is no entry: its files say so.
 */
function listed(root: string, folder: string): Dirent[] | string {
	try {
		return readdirSync(join(root, folder), { withFileTypes: true });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
		return `(${folder === "" ? "the root" : folder}: discern could not look through it, ${(error as NodeJS.ErrnoException).code ?? "unreadable"})`;
	}
}

/** The names of the files whose rules git reads from the work tree. */
const RULE_FILES = new Set([".gitignore", ".gitattributes"]);

/** Which of some untracked folders the committed rules ignore (as the untracked listing reads them), asked through `run`; null when git could not tell. */
export function ignoredFoldersAsker(run: (args: readonly string[]) => ReturnType<typeof git>): (candidates: readonly string[]) => Promise<Set<string> | null> {
	return async (candidates) => {
		const listedIgnored = await run([...IGNORED_BY_GITIGNORE, ...candidates.map((path) => `:(literal)${path}`)]);
		if (listedIgnored.exitCode !== 0 || listedIgnored.stderr.trim() !== "") return null;
		const shown = new Set(nulSeparated(listedIgnored.stdout));
		return new Set(candidates.filter((path) => shown.has(`${path}/`)));
	};
}
