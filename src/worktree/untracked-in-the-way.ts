import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";

/**
 * What git does not track (untracked or ignored: a copied .env, build
 * output, a nested repository) that writing `paths` into the worktree at
 * `root` would replace: a file or symlink at a path, or where one of its
 * parent folders must be, and whatever sits inside a folder that must become
 * a file. git overwrites ignored files without a word, and `merge --abort`
 * then deletes what it wrote; untracked ones it mostly refuses to touch, but
 * asking first costs nothing and needs no trust in each case git guards.
 * Sorted, one entry per thing in the way (a folder git tracks nothing in
 * ends with `/`); null when git could not list.
 */
export async function untrackedInTheWay(root: string, paths: readonly string[]): Promise<string[] | null> {
	const tracked = await git(["ls-files", "-z", "--full-name"], root);
	if (tracked.exitCode !== 0) return null;
	const known = new Set(nulSeparated(tracked.stdout));
	const found = new Set<string>();
	const folders: string[] = [];
	const unreadable: string[] = [];
	// Paths share their parent folders: look at each folder once, not once per file the merge writes into it.
	const seen = new Map<string, Awaited<ReturnType<typeof lstat>> | null>();
	const look = async (path: string) => {
		if (!seen.has(path)) seen.set(path, await lstat(join(root, path)).catch(() => null));
		return seen.get(path) ?? null;
	};
	for (const path of paths) {
		if (known.has(path)) continue;
		// A name that is not UTF-8 reaches here with U+FFFD, which names another file: judged by git's listing instead.
		if (path.includes("\uFFFD")) {
			unreadable.push(path);
			continue;
		}
		const parts = path.split("/");
		for (let depth = 1; depth <= parts.length; depth++) {
			const prefix = parts.slice(0, depth).join("/");
			const info = await look(prefix);
			if (!info) break;
			if (info.isDirectory()) {
				if (depth === parts.length) folders.push(prefix);
				continue;
			}
			// A tracked file where a folder must be: the merge replaces it, and the tree is committed.
			if (!known.has(prefix)) found.add(prefix);
			break;
		}
	}
	if (folders.length > 0 || unreadable.length > 0) {
		const others = await contentGitDoesNotTrack(root);
		if (others === null) return null;
		for (const folder of folders) for (const entry of others) if (entry.startsWith(`${folder}/`)) found.add(entry);
		for (const path of unreadable) for (const entry of others) if (inTheWayOf(path, entry)) found.add(entry);
	}
	return [...found].sort();
}

/**
 * Whether an entry of git's listing of what it does not track is in the way of
 * `path`, told from names alone (both decoded the same lossy way, so a match
 * may be a false alarm, never a miss): the same path, a file where a folder
 * of it must be, content inside it, or an untracked folder it would go into.
 */
function inTheWayOf(path: string, entry: string): boolean {
	if (entry.endsWith("/")) return path.startsWith(entry) || entry.startsWith(`${path}/`);
	return entry === path || path.startsWith(`${entry}/`) || entry.startsWith(`${path}/`);
}

/**
 * Every untracked and ignored entry of the worktree (no exclude rules, so
 * ignored ones too), a folder git tracks nothing in given once as `dir/`:
 * a vendored tree or an ignored node_modules costs one line, not one per file.
 */
async function contentGitDoesNotTrack(root: string): Promise<string[] | null> {
	const others = await git(["ls-files", "-z", "--others", "--directory", "--no-empty-directory", "--full-name"], root);
	return others.exitCode === 0 ? nulSeparated(others.stdout) : null;
}
