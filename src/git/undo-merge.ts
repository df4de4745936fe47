import { lstat, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { realPathOf, removeEmptyFolders } from "../platform/files.ts";
import type { Keeper } from "../state/kept.ts";
import { clip } from "../text/clip.ts";
import { firstLine } from "../text/first-line.ts";
import { commitOf } from "./ancestry.ts";
import { nulSeparated } from "./nul-list.ts";
import { git } from "./run.ts";

/** How far a file's time may trail the clock read before git started (the kernel stamps files from a coarse clock). */
const CLOCK_SLACK_MS = 2_000;

/** What a merge about to run will write, read before it starts: enough to put the worktree back whatever point it stops at. */
export interface MergeStart {
	/** The branch's commit before the merge. */
	head: string;
	/** Every path the merge writes (git/merge-writes.ts), checked free of untracked and ignored files before it ran. */
	paths: readonly string[];
	/** Folders those paths need that did not exist before. */
	newFolders: string[];
	/** When the merge started (ms): an index lock newer than this is the merge's. */
	started: number;
}

/** The folders `paths` need that do not exist in `root` now. */
export async function missingFolders(root: string, paths: readonly string[]): Promise<string[]> {
	const missing = new Set<string>();
	const present = new Set<string>();
	for (const path of paths) {
		for (let folder = dirname(path); folder !== "." && !missing.has(folder) && !present.has(folder); folder = dirname(folder)) {
			if (await lstat(join(root, folder)).catch(() => null)) {
				present.add(folder);
				break;
			}
			missing.add(folder);
		}
	}
	return [...missing];
}

/**
 * Put a worktree whose merge was interrupted back exactly as it was before
 * the merge: a merge that completed is reset off the branch (`reset --keep`,
 * which refuses rather than drop a local change), a merge left pending is
 * aborted, and a merge git was stopped in the middle of (HEAD unmoved, the
 * checkout half written) gets, for exactly the paths it writes, HEAD's index
 * entries and files back, and the files it added removed (nothing was there
 * before it: update checked). Nothing else of the worktree is touched: a
 * person's untracked and ignored files elsewhere stay. Runs after git and
 * everything it started have ended, so an index lock newer than the merge is
 * the merge's. Null when the worktree is as it was, else what is left.
 */
export async function undoMerge(root: string, start: MergeStart, keeper: Keeper): Promise<string | null> {
	const now = await commitOf(root, "HEAD");
	const lockPath = await gitPath(root, "index.lock");
	const lock = lockPath ? await lstat(lockPath).catch(() => null) : null;
	if (lockPath && lock) {
		if (lock.mtimeMs < start.started - CLOCK_SLACK_MS) return `git's index lock ${lockPath} is older than the merge (another git process may be running)`;
		await rm(lockPath, { force: true });
	}
	if (now !== start.head) {
		if (now === null) return "git could not read HEAD";
		const reset = await git(["reset", "-q", "--keep", start.head], root);
		if (reset.exitCode !== 0)
			return `the branch could not be moved back to ${start.head.slice(0, 7)}: ${clip(firstLine(reset.stderr) || `exit ${reset.exitCode}`)}`;
	} else if ((await git(["rev-parse", "-q", "--verify", "MERGE_HEAD"], root)).exitCode === 0) {
		await git(["merge", "--abort"], root);
	}
	if (await putBack(root, start, keeper)) return null;
	return "the worktree's index or files still differ from its HEAD";
}

/** HEAD is the pre-merge commit: the merge's paths get HEAD's entries and files again; true when the worktree then matches HEAD. */
async function putBack(root: string, start: MergeStart, keeper: Keeper): Promise<boolean> {
	const paths = [...start.paths];
	const listed = await git(["ls-tree", "-r", "-z", "--full-tree", start.head], root);
	if (listed.exitCode !== 0) return false;
	const wanted = new Set(paths);
	const tracked = new Map<string, string>();
	for (const line of nulSeparated(listed.stdout)) {
		const path = line.slice(line.indexOf("\t") + 1);
		if (wanted.has(path)) tracked.set(path, line.slice(0, line.indexOf("\t")));
	}
	const zero = "0".repeat(start.head.length);
	const entries = paths.map((path) => `${tracked.get(path) ?? `0 ${zero}`}\t${path}`);
	if (entries.length > 0) {
		const indexed = await git(["update-index", "-z", "--index-info"], root, { input: `${entries.join("\0")}\0` });
		if (indexed.exitCode !== 0) return false;
	}
	const top = await realPathOf(root);
	// What cannot be moved aside stays where it is, and is never written over.
	const stays = new Set<string>();
	for (const path of paths) {
		if (tracked.has(path)) continue;
		const found = await lstat(join(top, path)).catch(() => null);
		// Nothing was at a path the merge adds before it ran, so what is there now is likely the merge's; but a person may
		// have written one there while it ran: moved aside into the kept folder (state/kept.ts), never deleted.
		if (found && !found.isDirectory() && !(await keeper.moveAside(top, path))) stays.add(path);
	}
	for (const folder of [...start.newFolders].sort((a, b) => b.length - a.length)) await removeEmptyFolders(top, join(top, folder, "-"));
	const trackedPaths = paths.filter((path) => tracked.has(path) && !tracked.get(path)?.startsWith("160000 "));
	const restore: string[] = [];
	for (const path of trackedPaths) {
		const found = await lstat(join(top, path)).catch(() => null);
		if (found?.isDirectory()) await removeEmptyFolders(top, join(top, path, "-"));
		// Its bytes go aside before git writes HEAD's over them.
		else if (found && !(await keeper.moveAside(top, path))) {
			stays.add(path);
			continue;
		}
		restore.push(path);
	}
	if (restore.length > 0) {
		const restored = await git(["checkout-index", "-f", "-u", "-z", "--stdin"], root, { input: `${restore.join("\0")}\0` });
		if (restored.exitCode !== 0) return false;
	}
	await git(["update-index", "-q", "--refresh"], root);
	const [cached, files] = await Promise.all([git(["diff-index", "--cached", "--quiet", "HEAD", "--"], root), git(["diff-files", "--quiet"], root)]);
	return cached.exitCode === 0 && files.exitCode === 0 && stays.size === 0;
}

async function gitPath(root: string, name: string): Promise<string | null> {
	const asked = await git(["rev-parse", "--path-format=absolute", "--git-path", name], root);
	return asked.exitCode === 0 ? asked.stdout.trim() || null : null;
}
