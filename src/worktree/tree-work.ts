import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { filesHiddenFromStatus } from "../git/repository.ts";
import { git } from "../git/run.ts";
import { parsePorcelainV2, type WorkingState } from "../git/status.ts";

/**
 * Settings a checkout's own config could use to make `git status` look
 * away (an fsmonitor hook that reports nothing, a stale untracked cache,
 * stat shortcuts): pinned for every judgement that decides whether a
 * worktree may be removed. The same list as src/git/evidence/evidence.ts.
 */
export const PINNED_STATUS = [
	"-c",
	"core.fsmonitor=false",
	"-c",
	"core.untrackedCache=false",
	"-c",
	"core.ignoreStat=false",
	"-c",
	"core.checkStat=default",
	"-c",
	"core.trustctime=true",
] as const;

export interface TreeWork {
	/** Branch, HEAD and the changes `git status` reports, with the settings above pinned. */
	working: WorkingState;
	/**
	 * Tracked files git is told not to look at (assume-unchanged,
	 * skip-worktree) whose file on disk holds something the index lacks:
	 * uncommitted work a plain status never shows.
	 */
	hidden: string[];
	/** No reported change and no hidden work. */
	clean: boolean;
}

/**
 * What removing a checkout would lose, judged with git's shortcuts pinned
 * off: the status, plus every hidden file whose content differs from the
 * index. Null when git could not answer (never read as clean).
 */
export async function readTreeWork(path: string): Promise<TreeWork | null> {
	// Every submodule looked into: `ignore = dirty` in .gitmodules (or diff.ignoreSubmodules) would hide its uncommitted work from a removal.
	const status = await git(
		[
			...PINNED_STATUS,
			"-c",
			"diff.ignoreSubmodules=none",
			"status",
			"--porcelain=v2",
			"--branch",
			"-z",
			"--untracked-files=normal",
			"--ignore-submodules=none",
		],
		path,
	);
	if (status.exitCode !== 0) return null;
	const working = parsePorcelainV2(status.stdout);
	const flagged = await filesHiddenFromStatus(path);
	if (flagged === null) return null;
	const hidden = flagged.length === 0 ? [] : await hiddenWork(path, flagged);
	if (hidden === null) return null;
	return { working, hidden, clean: working.changes.length === 0 && hidden.length === 0 };
}

/**
 * The flagged files that hold work: present on disk and different from
 * their index entry (hashed with the path's own filters). A file that is
 * absent (a sparse checkout's) loses nothing; one that cannot be compared
 * (a symlink, a folder, a path in a submodule) counts as work.
 */
async function hiddenWork(root: string, flagged: readonly string[]): Promise<string[] | null> {
	const staged = await git([...PINNED_STATUS, "ls-files", "-s", "-z", "--", ...flagged.map((path) => `:(literal)${path}`)], root);
	if (staged.exitCode !== 0) return null;
	const blobs = new Map<string, string>();
	for (const record of staged.stdout.split("\0")) {
		const tab = record.indexOf("\t");
		if (tab < 0) continue;
		const [mode, blob] = record.slice(0, tab).split(" ");
		if (mode?.startsWith("100") && blob) blobs.set(record.slice(tab + 1), blob);
	}
	const work: string[] = [];
	const compare: string[] = [];
	for (const path of flagged) {
		const info = await lstat(join(root, path)).catch(() => null);
		if (!info) continue;
		if (info.isFile() && blobs.has(path) && !path.includes("\n")) compare.push(path);
		else work.push(path);
	}
	if (compare.length > 0) {
		const hashed = await git([...PINNED_STATUS, "hash-object", "--stdin-paths"], root, { input: `${compare.join("\n")}\n` });
		if (hashed.exitCode !== 0) return null;
		const shas = hashed.stdout.trim().split("\n");
		compare.forEach((path, index) => {
			if (shas[index] !== blobs.get(path)) work.push(path);
		});
	}
	return work.sort();
}
