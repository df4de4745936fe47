import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import type { TaskRecord } from "./task.ts";
import { PINNED_STATUS } from "./tree-work.ts";

/**
 * What removing a worktree's folder loses beyond its commits: the files git
 * does not track there. Which of them are a person's, rather than output a
 * build makes again:
 *
 * - an env file `start` copied from the main checkout (`[worktree].env_files`)
 *   whose content is neither what was copied (its hash is in the task record)
 *   nor what the main checkout holds now: the person edited it in the
 *   worktree, and no copy of that edit exists anywhere. Such a file keeps the
 *   worktree (`edited_env`).
 * - everything else ignored (`node_modules/`, `dist/`, caches, a `*.local`
 *   note, an `.env` the person made there) goes with the folder, as
 *   `git worktree remove` deletes it: named and counted, never silently.
 *   Telling a person's note from build output by its name alone would be a
 *   guess; only the env files have a recorded original to compare with.
 * - untracked files that are not ignored stop `git worktree remove` itself.
 */
export interface LeftFiles {
	/** Ignored files and folders (a wholly ignored folder once, with a trailing `/`), up to {@link LISTED}. */
	ignored: string[];
	ignored_count: number;
	/** Untracked files and folders git does not ignore, up to {@link LISTED}. */
	untracked: string[];
	untracked_count: number;
	/** Env files `start` copied that were edited since, with no copy of the edit in the main checkout. */
	edited_env: string[];
}

/** How many names a list carries: a worktree can hold thousands of ignored folders (one `__pycache__/` per package). */
export const LISTED = 100;

export function noLeftFiles(): LeftFiles {
	return { ignored: [], ignored_count: 0, untracked: [], untracked_count: 0, edited_env: [] };
}

/** The files a worktree's removal would lose; null when git could not list them. */
export async function leftFiles(worktree: string, mainRoot: string, task: TaskRecord | null): Promise<LeftFiles | null> {
	const list = (ignored: boolean) =>
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--exclude-standard", "--directory", ...(ignored ? ["--ignored"] : [])], worktree);
	const [ignored, untracked] = await Promise.all([list(true), list(false)]);
	if (ignored.exitCode !== 0 || untracked.exitCode !== 0) return null;
	const ignoredNames = nulSeparated(ignored.stdout).sort();
	const untrackedNames = nulSeparated(untracked.stdout).sort();
	const copies = task?.env_copies ?? [];
	// A copy committed since is in the commits: nothing of it is lost with the folder.
	const tracked = copies.length > 0 ? await git([...PINNED_STATUS, "ls-files", "-z", "--", ...copies.map((copy) => `:(literal)${copy.path}`)], worktree) : null;
	if (tracked && tracked.exitCode !== 0) return null;
	const committed = new Set(nulSeparated(tracked?.stdout ?? ""));
	const edited: string[] = [];
	for (const copy of copies) {
		if (committed.has(copy.path)) continue;
		const now = await fileHash(join(worktree, copy.path));
		if (now === null || now === copy.sha256) continue;
		if ((await fileHash(join(mainRoot, copy.path))) === now) continue;
		edited.push(copy.path);
	}
	return {
		ignored: ignoredNames.slice(0, LISTED),
		ignored_count: ignoredNames.length,
		untracked: untrackedNames.slice(0, LISTED),
		untracked_count: untrackedNames.length,
		edited_env: edited.sort(),
	};
}

/** The sha256 of a regular file's bytes; null for none (gone, a folder, a symlink: never followed). */
export async function fileHash(path: string): Promise<string | null> {
	const found = await lstat(path).catch(() => null);
	if (!found?.isFile()) return null;
	const bytes = await readFile(path).catch(() => null);
	return bytes ? createHash("sha256").update(bytes).digest("hex") : null;
}
