import { allPids, canListChildren, childrenOf, environValue, type ProcStat, readStat, stillRunning, subtreeOf } from "./proc.ts";
import { killTreeByScan, processesCarrying, signalAll } from "./process-scan.ts";
import { isSpared } from "./spared.ts";
import { holdSubreaper, reap, releaseSubreaper } from "./subreaper.ts";

/**
 * Nothing a job starts may outlive discern. Each command runs as the leader
 * of its own session and process group, so one signal to the group reaches
 * every descendant that stayed in it, and carries a token in its environment.
 *
 * On Linux discern is a child subreaper while jobs run (subreaper.ts): a
 * descendant whose parent dies is re-parented to discern, never to init. So
 * every process a job started is either below a running job's leader or a
 * child of discern, and both are found by walking down from discern's own
 * children list, without looking at the rest of the machine:
 * - a job's tree is its leader's descendants, plus the children of discern
 *   that are in its session or group or carry its token;
 * - after a job ended, every child of discern outside discern's own session
 *   (its git calls stay in it; a job, started with setsid, can never re-enter
 *   it) that belongs to no running job is a leftover, and is killed with its
 *   descendants. While another run's jobs are running (an MCP server runs
 *   gates side by side), a leftover must be provably this run's: its
 *   session, group or token; the rest waits for a later sweep.
 * Adopted children that exit are reaped here (the runtime reaps only what it
 * spawned).
 *
 * Where discern cannot be a subreaper (not Linux, no glibc, no children list
 * in /proc) the fallback scans all of /proc (process-scan.ts): slower on a
 * busy machine, and blind to a process that both cleared its environment and
 * lost its parent.
 *
 * If discern exits while jobs still run (the hard exit after a signal, a
 * crash), an exit hook SIGKILLs them synchronously. If it is SIGKILLed itself,
 * the next gate in the checkout cleans up (jobs/leftovers.ts).
 */
export interface TreeToken {
	key: string;
	value: string;
}

/** One command's process tree: the `sh` discern started (leading its own session and group) and its token. */
export interface JobTree {
	leader: number;
	token: TreeToken;
}

export interface TreeKeeper {
	/** Orphans re-parent to discern (the subreaper); false: the /proc scan fallback. */
	readonly subreaper: boolean;
	/** A tree's leader was just spawned. */
	started(tree: JobTree): void;
	/**
	 * Its leader has exited and the runtime has reaped it: KILL what stayed in
	 * its group now; what left the group waits for the next sweep.
	 */
	ended(tree: JobTree): void;
	/** TERM the whole tree, give it `graceMs` to go, then KILL whatever is left, including processes that appeared meanwhile. */
	kill(tree: JobTree, graceMs: number): Promise<void>;
	/**
	 * KILL whatever the ended trees left running. True when it found anything
	 * left behind (alive, or a zombie just reaped): whatever was looked at
	 * while the sweep ran may have changed before that was killed.
	 */
	sweep(): Promise<boolean>;
	/** The run is over (every tree ended and swept): let go of the subreaper. */
	close(): void;
}

/** Trees whose leader runs, across every run in this process. */
const live = new Map<number, JobTree>();
/** Open keepers, for the exit hook. */
const keepers = new Set<Keeper>();
/** Counts every tree started or ended, across runs. */
let treeEvents = 0;
/** `treeEvents` when a sweep last ended on clear looks (no adopted child at all) with no tree started or ended meanwhile. */
let clearAt = -1;
/** How long a sweep keeps killing what keeps appearing before it gives up until the next one. */
const SWEEP_LIMIT_MS = 2000;

interface Keeper extends TreeKeeper {
	/** Ended trees not swept yet. */
	pending: JobTree[];
}

/** Choose the strategy for one run: the subreaper where the platform allows it (and the caller does not decline it). */
export async function openTreeKeeper(options: { subreaper?: boolean } = {}): Promise<TreeKeeper> {
	const subreaper = (options.subreaper ?? true) && canListChildren() && (await holdSubreaper());
	const keeper = subreaper ? subreaperKeeper() : scanKeeper();
	keepers.add(keeper);
	installExitHook();
	return keeper;
}

function baseKeeper(subreaper: boolean): Pick<Keeper, "pending" | "subreaper" | "started" | "ended"> {
	const pending: JobTree[] = [];
	return {
		subreaper,
		pending,
		started: (tree) => {
			treeEvents++;
			live.set(tree.leader, tree);
		},
		ended: (tree) => {
			treeEvents++;
			live.delete(tree.leader);
			signalAll([-tree.leader], "SIGKILL");
			pending.push(tree);
		},
	};
}

function subreaperKeeper(): Keeper {
	const base = baseKeeper(true);
	const keeper: Keeper = {
		...base,
		kill: async (tree, graceMs) => {
			const first = treeMembers(tree);
			signalAll([-tree.leader, ...first.map((member) => member.pid)], "SIGTERM");
			const deadline = Date.now() + graceMs;
			while (Date.now() < deadline && treeAlive(tree)) await Bun.sleep(25);
			// What is in the tree now, and what was in it at first if it is still that same process.
			const last = treeMembers(tree);
			const stayed = first.filter((member) => stillRunning(member));
			signalAll([-tree.leader, ...last.map((member) => member.pid), ...stayed.map((member) => member.pid)], "SIGKILL");
		},
		sweep: async () => {
			// Nothing ended since a sweep found discern with no adopted child at all: nobody can have been adopted since
			// (a leftover always has a member in discern's list), so another look would find the same nothing.
			if (base.pending.length === 0 && clearAt === treeEvents) return false;
			const ended = base.pending.splice(0);
			return sweepAdopted(ended);
		},
		close: () => {
			keepers.delete(keeper);
			releaseSubreaper();
		},
	};
	return keeper;
}

function scanKeeper(): Keeper {
	const base = baseKeeper(false);
	const keeper: Keeper = {
		...base,
		kill: (tree, graceMs) => killTreeByScan(tree.leader, graceMs, tree.token.key, tree.token.value),
		sweep: async () => {
			const ended = base.pending.splice(0);
			const key = ended[0]?.token.key;
			if (!key) return false;
			const left = await processesCarrying(key, new Set(ended.map((tree) => tree.token.value)));
			signalAll(left, "SIGKILL");
			return left.length > 0;
		},
		close: () => void keepers.delete(keeper),
	};
	return keeper;
}

let ownSession: number | undefined;

/**
 * Children of discern that it adopted (outside its own session) and that are
 * not a running job's leader, which the runtime spawned and will reap.
 * Zombies among them are reaped here and not returned.
 */
function adopted(): ProcStat[] {
	return lookAtAdopted().found;
}

/**
 * One look at discern's children: the adopted ones alive (`found`), and
 * whether any adopted child was there at all, alive or a zombie reaped just
 * now (`seen`). A look that saw none is clear: see `sweepAdopted`.
 */
function lookAtAdopted(): { found: ProcStat[]; seen: boolean } {
	ownSession ??= readStat(process.pid)?.session ?? -1;
	const found: ProcStat[] = [];
	let seen = false;
	for (const pid of childrenOf("self")) {
		if (live.has(pid)) continue;
		const stat = readStat(pid);
		if (!stat || stat.session === ownSession || isSpared(stat)) continue;
		seen = true;
		if (stat.zombie) reap(pid);
		else found.push(stat);
	}
	return { found, seen };
}

/** The tree's live processes: below its leader, and adopted ones that are provably its own. */
function treeMembers(tree: JobTree): ProcStat[] {
	const found = subtreeOf(tree.leader).filter((member) => !member.zombie);
	for (const child of adopted()) {
		if (child.session === tree.leader || child.group === tree.leader || environValue(child.pid, tree.token.key) === tree.token.value) {
			found.push(child, ...subtreeOf(child.pid).filter((member) => !member.zombie));
		}
	}
	return found;
}

function treeAlive(tree: JobTree): boolean {
	const leader = live.has(tree.leader) ? readStat(tree.leader) : null;
	return (leader !== null && !leader.zombie) || treeMembers(tree).length > 0;
}

/**
 * KILL every adopted process that no running job owns (with its
 * descendants), again until none is left: killing one re-parents its
 * children to discern.
 */
async function sweepAdopted(ended: readonly JobTree[]): Promise<boolean> {
	const leaders = new Set(ended.map((tree) => tree.leader));
	const tokens = new Set(ended.map((tree) => tree.token.value));
	const key = ended[0]?.token.key;
	const provablyEnded = (stat: ProcStat) =>
		leaders.has(stat.session) || leaders.has(stat.group) || (key !== undefined && tokens.has(environValue(stat.pid, key) ?? ""));
	const deadline = Date.now() + SWEEP_LIMIT_MS;
	// One empty look is not enough: a process that forks and exits in a loop is, between two reads of the
	// children list, a zombie (reaped) whose child is not re-parented yet. Only several quiet looks in a row end the sweep.
	// A look that saw no adopted child at all, not even a zombie, is clear: a process's orphans are re-parented
	// to discern as it exits, before it becomes a zombie, and it stays in discern's list until discern reaps it,
	// so some member of every family of leftovers is always in the list. Clear looks end the sweep sooner
	// (the usual case: the jobs left nothing behind); one that saw anything puts it back on quiet looks.
	let quiet = 0;
	let clear = 0;
	let clearSince = -1;
	// Whether any look saw an adopted child at all: only a sweep of clear looks from the first vouches that nothing was left.
	let sawAny = false;
	for (;;) {
		const events = treeEvents;
		const look = lookAtAdopted();
		sawAny ||= look.seen;
		const targets = look.found.filter(
			(stat) => !live.has(stat.session) && !live.has(stat.group) && !isSpared(stat) && (live.size === 0 || provablyEnded(stat)),
		);
		if (targets.length === 0) {
			quiet++;
			clear = look.seen ? 0 : clear + 1;
			if (clear === 1) clearSince = events;
		} else {
			quiet = 0;
			clear = 0;
			killWithDescendants(targets);
		}
		if (clear >= CLEAR_LOOKS && clearSince === treeEvents) clearAt = treeEvents;
		if (quiet >= QUIET_LOOKS || clear >= CLEAR_LOOKS || Date.now() > deadline) return sawAny;
		await Bun.sleep(clear > 0 ? 1 : 5);
	}
}

/** Empty looks in a row that end a sweep. */
const QUIET_LOOKS = 4;
/** Clear looks in a row (no adopted child at all, 1 ms apart) that end a sweep; more than one, as the list is read while it may change. */
const CLEAR_LOOKS = 3;

function killWithDescendants(targets: readonly ProcStat[]): void {
	for (const target of targets) {
		// Its group too: a member that forked just now is in it. Never discern's own (a target is outside its session).
		const group = target.group > 1 ? [-target.group] : [];
		signalAll([...group, target.pid, ...subtreeOf(target.pid).map((member) => member.pid)], "SIGKILL");
	}
}

let exitHookInstalled = false;

/** On any exit while jobs run, SIGKILL them at once: an exit hook cannot wait for a grace period. */
function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	// Before the lock's own exit hook: the checkout is free only once its jobs are gone.
	process.prependListener("exit", killEverythingNow);
}

function killEverythingNow(): void {
	const trees = [...live.values(), ...[...keepers].flatMap((keeper) => keeper.pending)];
	signalAll(
		trees.flatMap((tree) => [-tree.leader, ...subtreeOf(tree.leader).map((member) => member.pid)]),
		"SIGKILL",
	);
	if ([...keepers].some((keeper) => keeper.subreaper)) {
		for (let round = 0; round < 100; round++) {
			const left = adopted();
			if (left.length === 0) break;
			killWithDescendants(left);
		}
		return;
	}
	// The fallback: one synchronous scan of /proc for the tokens (this is the rare path).
	const tokens = new Set(trees.map((tree) => tree.token.value));
	const key = trees[0]?.token.key;
	if (key === undefined) return;
	signalAll(
		(allPids() ?? []).filter((pid) => pid !== process.pid && tokens.has(environValue(pid, key) ?? "")),
		"SIGKILL",
	);
}
