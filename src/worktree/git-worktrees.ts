import { readdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pointerValue } from "../git/printable-path.ts";
import { git } from "../git/run.ts";
import { clearDropping, markDropping } from "./dropping.ts";

/** One worktree as `git worktree list --porcelain -z` tells it, with its git admin dir. */
export interface ListedWorktree {
	path: string;
	/** Full sha of HEAD; null on an unborn branch. */
	head: string | null;
	/** Short branch name; null when detached. */
	branch: string | null;
	/** The first entry: the checkout that owns the common dir. */
	main: boolean;
	bare: boolean;
	/** git marks it prunable when its folder is gone. */
	prunable: boolean;
	locked: boolean;
	/** Its own git dir (`<common>/worktrees/<name>` for a linked one); null when git's admin files do not name it. */
	gitDir: string | null;
}

/**
 * Every worktree of the repository, the main checkout first. The git dir of
 * a linked worktree comes from git's own admin files in the common dir
 * (`worktrees/<name>/gitdir` names the checkout's `.git`), never from the
 * checkout's `.git` file, which anything in the tree could replace.
 * Null when git could not list them.
 */
export async function listWorktrees(cwd: string, commonDir: string): Promise<ListedWorktree[] | null> {
	const [result, admin] = await Promise.all([git(["worktree", "list", "--porcelain", "-z"], cwd), adminDirs(commonDir)]);
	if (result.exitCode !== 0) return null;
	const listed: ListedWorktree[] = [];
	let current: ListedWorktree | null = null;
	for (const record of result.stdout.split("\0")) {
		if (record === "") {
			if (current) listed.push(current);
			current = null;
			continue;
		}
		const space = record.indexOf(" ");
		const key = space < 0 ? record : record.slice(0, space);
		const value = space < 0 ? "" : record.slice(space + 1);
		if (key === "worktree") {
			if (current) listed.push(current);
			const main = listed.length === 0;
			current = {
				path: value,
				head: null,
				branch: null,
				main,
				bare: false,
				prunable: false,
				locked: false,
				gitDir: main ? commonDir : (admin.get(resolve(value)) ?? null),
			};
			continue;
		}
		if (!current) continue;
		if (key === "HEAD") current.head = /^0+$/.test(value) ? null : value;
		else if (key === "branch") current.branch = value.startsWith("refs/heads/") ? value.slice("refs/heads/".length) : value;
		else if (key === "bare") current.bare = true;
		else if (key === "prunable") current.prunable = true;
		else if (key === "locked") current.locked = true;
	}
	if (current) listed.push(current);
	return listed;
}

/** Worktree path → its admin dir, from `<common>/worktrees/*\/gitdir`. Empty when there are none. */
async function adminDirs(commonDir: string): Promise<Map<string, string>> {
	const found = new Map<string, string>();
	const base = join(commonDir, "worktrees");
	const names = await readdir(base).catch(() => [] as string[]);
	await Promise.all(
		names.map(async (name) => {
			// As git reads it: only the line ending goes (a path may hold spaces at its end, or a line break inside).
			const pointer = pointerValue(await readFile(join(base, name, "gitdir"), "utf8").catch(() => ""));
			if (pointer) found.set(resolve(dirname(pointer)), join(base, name));
		}),
	);
	return found;
}

/** Whether the repository has any linked worktree, from the file system alone (no git process). */
export async function hasLinkedWorktrees(commonDir: string): Promise<boolean> {
	const names = await readdir(join(commonDir, "worktrees")).catch(() => [] as string[]);
	return names.length > 0;
}

/** Commit time (ISO 8601) of each sha, in one git call; absent for those git could not read. */
export async function commitTimes(cwd: string, shas: readonly string[]): Promise<Map<string, string>> {
	const times = new Map<string, string>();
	const wanted = [...new Set(shas)].filter((sha) => /^[0-9a-f]{40,64}$/.test(sha));
	if (wanted.length === 0) return times;
	const result = await git(["log", "--no-walk=unsorted", "--format=%H %cI", ...wanted, "--"], cwd);
	if (result.exitCode !== 0) return times;
	for (const line of result.stdout.split("\n")) {
		const [sha, time] = line.split(" ");
		if (sha && time) times.set(sha, time);
	}
	return times;
}

/** The main checkout's folder (git lists it first); null when git cannot list the worktrees. */
export async function mainCheckoutOf(repository: { root: string; commonDir: string; location: "main" | "worktree" }): Promise<string | null> {
	if (repository.location === "main") return repository.root;
	return (await listWorktrees(repository.root, repository.commonDir))?.find((entry) => entry.main)?.path ?? null;
}

/** Commits on `sha` not on `base`, and on `base` not on `sha`; null when git could not count them. */
export async function aheadBehindOf(cwd: string, base: string, sha: string): Promise<{ ahead: number; behind: number } | null> {
	const result = await git(["rev-list", "--left-right", "--count", `${base}...${sha}`, "--"], cwd);
	if (result.exitCode !== 0) return null;
	const [behind, ahead] = result.stdout.trim().split(/\s+/).map(Number);
	if (behind === undefined || ahead === undefined || Number.isNaN(behind) || Number.isNaN(ahead)) return null;
	return { ahead, behind };
}

/** Create `ref` at `sha`, only if it does not exist yet (never overwrites another save); with `old`, move it only while it still points there. */
export async function createRef(cwd: string, ref: string, sha: string, old = ""): Promise<{ ok: true } | { ok: false; reason: string }> {
	const result = await git(["update-ref", "--no-deref", "-m", "discern: recovery", ref, sha, old], cwd);
	return result.exitCode === 0 ? { ok: true } : { ok: false, reason: result.stderr.trim() || `git update-ref exited ${result.exitCode}` };
}

/** Delete branch `refs/heads/<name>` only while it still points at `sha` (compare-and-swap). */
export async function deleteBranchAt(cwd: string, name: string, sha: string): Promise<{ ok: true } | { ok: false; reason: string }> {
	const result = await git(["update-ref", "--no-deref", "-d", `refs/heads/${name}`, sha], cwd);
	return result.exitCode === 0 ? { ok: true } : { ok: false, reason: result.stderr.trim() || `git update-ref exited ${result.exitCode}` };
}

/**
 * `git worktree remove --force PATH`: removes the folder and git's admin
 * files for it. git runs in a session of its own, its output in files
 * (platform/process.ts): a terminal's Ctrl-C, or discern killed, does not
 * stop it halfway through the folder. `mark` (the shared git dir and the
 * worktree's admin dir): the removal is marked as started first
 * (worktree/dropping.ts), so that a folder left half-deleted anyway can be
 * finished by a later drop.
 */
export async function removeWorktree(
	cwd: string,
	path: string,
	mark?: { commonDir: string; admin: string },
): Promise<{ ok: true } | { ok: false; reason: string; killedBy?: string }> {
	if (mark) await markDropping(mark.commonDir, mark.admin, resolve(path)).catch(() => undefined);
	const result = await git(["worktree", "remove", "--force", resolve(path)], cwd, { ownGroup: true });
	if (result.exitCode === 0) {
		if (mark) await clearDropping(mark.commonDir, mark.admin).catch(() => undefined);
		return { ok: true };
	}
	const reason =
		result.stderr.trim() || (result.killedBy ? `git worktree remove was killed (${result.killedBy})` : `git worktree remove exited ${result.exitCode}`);
	return result.killedBy ? { ok: false, reason, killedBy: result.killedBy } : { ok: false, reason };
}
