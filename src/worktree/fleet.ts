import { lstat } from "node:fs/promises";
import { loadConfig } from "../config/load.ts";
import { unprintablePath } from "../git/printable-path.ts";
import { git } from "../git/run.ts";
import type { Trunk } from "../git/trunk.ts";
import { configDigest, readLastDone, readLastRun } from "../jobs/last-run.ts";
import { mapBounded } from "../platform/bounded.ts";
import { judgeProof, type ProofState } from "../proof/checkout-state.ts";
import { readProof } from "../proof/record.ts";
import { aheadBehindOf, commitTimes, type ListedWorktree, listWorktrees } from "./git-worktrees.ts";
import { ledgerIds, readLedger } from "./ledger.ts";
import { canonical } from "./resources.ts";
import { readTask, type TaskRecord } from "./task.ts";
import { readTreeWork } from "./tree-work.ts";

/** One worktree of the fleet, as `worktree list` and the main checkout's `status` report it. */
export interface FleetWorktree {
	/** The task id from its task record; null for a worktree discern did not start. */
	id: string | null;
	title: string | null;
	branch: string | null;
	path: string;
	/** Full sha of HEAD; null when unborn or unreadable. */
	head: string | null;
	main: boolean;
	/** Its own git admin dir; null when git's admin files do not name it. */
	gitDir: string | null;
	/** `start` made it: its task record (in the admin dir, out of any branch's reach) says so. */
	created_by_discern: boolean;
	task: TaskRecord | null;
	/** Tracked and untracked changes, and hidden files holding work (tree-work.ts), counted; null when git could not tell (never read as clean). */
	clean: boolean | null;
	changes: number | null;
	ahead: number | null;
	behind: number | null;
	proof: ProofState;
	/** Latest of the HEAD commit's time and the last gate run here. */
	last_activity: string | null;
	/** Why its folder cannot be read (gone, a symlink, not a folder); null when it can. */
	problem: string | null;
	/** Locked with `git worktree lock`: git itself keeps it. */
	locked: boolean;
	/**
	 * Its work has landed: it has commits beyond the task's base and the trunk
	 * holds them all. False for a fresh worktree with nothing committed yet;
	 * null when discern cannot tell (no task record, git could not count).
	 */
	landed: boolean | null;
}

/** How many worktrees are read at once: each costs a few processes. */
const CONCURRENCY = 4;

/**
 * Every worktree of the repository (the main checkout first), each read
 * on its own: its tree, its config's digest, its Proof and last run, its
 * task, and its distance from the trunk. Null when git could not list them.
 */
export async function readFleet(
	where: { root: string; commonDir: string },
	trunk: Trunk,
	options: { linkedOnly?: boolean } = {},
): Promise<FleetWorktree[] | null> {
	const listed = await listWorktrees(where.root, where.commonDir);
	if (!listed) return null;
	const read = await mapBounded(
		listed.filter((worktree) => !worktree.bare && !(options.linkedOnly && worktree.main)),
		CONCURRENCY,
		(worktree) => readOne(where.root, where.commonDir, worktree, trunk),
	);
	const times = await commitTimes(
		where.root,
		read.flatMap((entry) => (entry.head ? [entry.head] : [])),
	);
	for (const entry of read) entry.last_activity = latest(entry.head ? times.get(entry.head) : undefined, entry.last_activity);
	await markClaims(where.commonDir, read);
	return read;
}

/**
 * A task record and a resource ledger are unsigned files: a worktree can
 * claim another's task id, or a ledger can name another worktree. Either
 * makes which resources belong to whom ambiguous, so the worktree gets a
 * problem (drop and prune leave it; destroyResources refuses too).
 */
async function markClaims(commonDir: string, fleet: FleetWorktree[]): Promise<void> {
	const claimants = new Map<string, FleetWorktree[]>();
	for (const worktree of fleet) if (worktree.id) claimants.set(worktree.id, [...(claimants.get(worktree.id) ?? []), worktree]);
	const paths = new Map<string, FleetWorktree>();
	for (const worktree of fleet) paths.set(await canonical(worktree.path), worktree);
	const mark = (worktree: FleetWorktree, problem: string) => {
		if (!worktree.problem) worktree.problem = problem;
	};
	for (const [id, claiming] of claimants) {
		if (claiming.length > 1)
			for (const worktree of claiming)
				mark(
					worktree,
					`its task id ${JSON.stringify(id)} is claimed by ${claiming.length} worktrees (${claiming.map((other) => other.path).join(", ")}): whose resources are whose is ambiguous`,
				);
	}
	for (const id of await ledgerIds(commonDir)) {
		const ledger = await readLedger(commonDir, id).catch(() => null);
		if (!ledger) continue;
		const owner = paths.get(await canonical(ledger.worktree));
		const claiming = claimants.get(id) ?? [];
		if (owner && owner.id !== id)
			mark(
				owner,
				`the resource ledger of ${JSON.stringify(id)} names this worktree, but its task record says ${owner.id ? JSON.stringify(owner.id) : "nothing"}`,
			);
		for (const worktree of claiming) if (worktree !== owner) mark(worktree, `the resource ledger of its task id names another worktree (${ledger.worktree})`);
	}
}

async function readOne(root: string, commonDir: string, worktree: ListedWorktree, trunk: Trunk): Promise<FleetWorktree> {
	const gitDir = worktree.gitDir;
	const [problem, task, proof, lastDone, lastRun] = await Promise.all([
		folderProblem(worktree.path, worktree.prunable),
		gitDir ? readTask(gitDir) : null,
		gitDir ? readProof(gitDir) : null,
		gitDir ? readLastDone(gitDir) : null,
		gitDir ? readLastRun(gitDir) : null,
	]);
	const [work, config, counts] = await Promise.all([
		// Judged by done's rules (tree-work.ts): what drop and prune decide on, and what status shows.
		problem ? null : readTreeWork(worktree.path, commonDir, gitDir),
		problem ? null : loadConfig(worktree.path),
		trunk.exists && trunk.name && worktree.head ? distance(root, trunk, worktree.head) : null,
	]);
	const working = work?.working ?? null;
	const head = working ? working.head : worktree.head;
	const landed = await hasLanded(root, task, head, counts?.ahead ?? null);
	const branch = working ? working.branch : worktree.branch;
	const clean = work ? work.clean : null;
	return {
		id: task?.id ?? null,
		title: task?.title ?? null,
		branch,
		path: worktree.path,
		head,
		main: worktree.main,
		gitDir,
		created_by_discern: task?.created_by === "discern",
		task,
		clean,
		changes: work ? work.working.changes.length + work.hidden.length : null,
		ahead: counts?.ahead ?? null,
		behind: counts?.behind ?? null,
		proof: judgeProof(proof, lastDone, {
			head,
			branch,
			clean: clean === true,
			digest: config?.state === "valid" ? configDigest(JSON.stringify(config.config)) : null,
			trunk,
		}),
		last_activity: lastRun?.time ?? null,
		problem,
		locked: worktree.locked,
		landed,
	};
}

/** Landed: the trunk holds the tip (ahead 0) and the tip is beyond the task's base (at least one commit was made). */
export async function hasLanded(root: string, task: TaskRecord | null, head: string | null, ahead: number | null): Promise<boolean | null> {
	if (!task || !head || ahead === null) return null;
	if (ahead > 0 || head === task.base) return false;
	const beyond = await git(["rev-list", "--count", `${task.base}..${head}`, "--"], root);
	const count = beyond.exitCode === 0 ? Number(beyond.stdout.trim()) : Number.NaN;
	return Number.isNaN(count) ? null : count > 0;
}

async function distance(root: string, trunk: Trunk, head: string): Promise<{ ahead: number; behind: number } | null> {
	if (trunk.sha === head) return { ahead: 0, behind: 0 };
	return aheadBehindOf(root, `refs/heads/${trunk.name}`, head);
}

/** A worktree folder discern will not read or remove through: gone, or not a plain folder (a symlink may lead anywhere). */
async function folderProblem(path: string, prunable: boolean): Promise<string | null> {
	// git itself lists it whole (-z), but discern's own git reads there would name it one line at a time.
	const unprintable = unprintablePath(path);
	if (unprintable) return unprintable;
	const info = await lstat(path).catch(() => null);
	if (!info) return prunable ? "its folder is gone (git marks it prunable)" : "its folder is gone";
	if (info.isSymbolicLink()) return "its folder is a symlink";
	if (!info.isDirectory()) return "its path is not a folder";
	return null;
}

function latest(a: string | null | undefined, b: string | null | undefined): string | null {
	if (!a) return b ?? null;
	if (!b) return a;
	return Date.parse(a) >= Date.parse(b) ? a : b;
}
