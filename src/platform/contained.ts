import { randomUUID } from "node:crypto";
import { closeSync } from "node:fs";
import { openOutputFiles, readBack } from "./output-files.ts";
import { type Captured, cleanEnv, NOT_STARTED } from "./process.ts";
import { descendantsOf, signalAll } from "./process-scan.ts";
import { type JobTree, openTreeKeeper } from "./process-tree.ts";

/**
 * A command that runs code discern does not own (git with the repository's
 * hooks), run the way a gate runs a job, yet answered like `capture`:
 * - it leads its own session and process group, and is a tree of the
 *   process-tree keeper (subreaper, or the token scan): what it leaves
 *   running is killed once it exits, a `setsid` daemon included;
 * - its output goes to files, never to pipes: a background child that
 *   inherited stdout cannot keep discern waiting for an end of file. The
 *   files are unlinked as soon as they are open, so nothing is left on disk
 *   even if discern is killed;
 * - a time limit and the caller's signal stop the whole tree (TERM, a grace,
 *   then KILL).
 */
export interface ContainedOptions {
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	/** Seconds; 0: no limit. */
	timeoutS: number;
	signal?: AbortSignal;
	/** How long a TERMed tree gets before it is KILLed. */
	graceMs?: number;
	/**
	 * Set: the caller's signal does not stop the leader (git) at once. What it
	 * started (its hooks, and what they started) is stopped, again and again
	 * as it starts more, while git gets up to this many ms to finish its own
	 * writes (a merge stopped halfway leaves a checkout half written: one that
	 * ran its course, or stopped where a hook failed, can be undone whole);
	 * then the whole tree is stopped. The result still says `interrupted`.
	 */
	finishOnSignalMs?: number;
	/** false: find leftovers by scanning /proc for the run's token, not as a subreaper (the fallback of platforms without prctl; tests). */
	subreaper?: boolean;
}

export interface Contained extends Captured {
	/** The time limit ran out: the whole tree was stopped. */
	timedOut: boolean;
	/** The caller's signal fired while it ran: the whole tree was stopped. */
	interrupted: boolean;
}

/** The environment key of the per-run token, distinct from a job's: discern run as a job keeps its job's token for its own sweep. */
export const CONTAINED_TOKEN_KEY = "DISCERN_CONTAINED_TOKEN";

/** As a gate job's (jobs/runner.ts): long enough for git to remove its lock files on TERM. */
const GRACE_MS = 2000;

/** How often an interrupted leader's descendants are stopped while it finishes. */
const CHILD_SWEEP_MS = 20;

/** How much of each stream is read back: its head and tail past this (a merge's diffstat can be long; messages are at its ends). */
const OUTPUT_LIMIT_BYTES = 1024 * 1024;

export async function runContained(argv: readonly string[], options: ContainedOptions): Promise<Contained> {
	if (options.signal?.aborted) return { exitCode: NOT_STARTED, stdout: "", stderr: "interrupted before it started", timedOut: false, interrupted: true };
	const files = openOutputFiles();
	if ("failed" in files) return { exitCode: NOT_STARTED, stdout: "", stderr: files.failed, timedOut: false, interrupted: false };
	const trees = await openTreeKeeper(options.subreaper === undefined ? {} : { subreaper: options.subreaper });
	try {
		const token = { key: CONTAINED_TOKEN_KEY, value: randomUUID() };
		let child: ReturnType<typeof Bun.spawn>;
		try {
			child = Bun.spawn([...argv], {
				cwd: options.cwd,
				env: { ...cleanEnv(options.env), [token.key]: token.value },
				stdin: "ignore",
				stdout: files.stdout,
				stderr: files.stderr,
				// setsid(): its own session and group, so one signal reaches everything that stayed in it.
				detached: true,
			});
		} catch (error) {
			return { exitCode: NOT_STARTED, stdout: "", stderr: error instanceof Error ? error.message : String(error), timedOut: false, interrupted: false };
		}
		const tree: JobTree = { leader: child.pid, token };
		trees.started(tree);
		let timedOut = false;
		let interrupted = false;
		let stopping: Promise<void> | undefined;
		const stop = () => {
			stopping ??= trees.kill(tree, options.graceMs ?? GRACE_MS);
		};
		const timer =
			options.timeoutS > 0
				? setTimeout(() => {
						if (stopping) return;
						timedOut = true;
						stop();
					}, options.timeoutS * 1000)
				: undefined;
		let finishing: ReturnType<typeof setTimeout> | undefined;
		const onAbort = () => {
			if (stopping) return;
			interrupted = true;
			if (options.finishOnSignalMs === undefined) stop();
			else if (!finishing) {
				finishing = setTimeout(stop, options.finishOnSignalMs);
				void stopChildren(child.pid);
			}
		};
		// The leader's descendants (hooks), TERMed every few ms until the leader exits: git carries on without them.
		let leaderDone = false;
		const stopChildren = async (leader: number) => {
			while (!leaderDone && !stopping) {
				signalAll(await descendantsOf(leader), "SIGTERM");
				await Bun.sleep(CHILD_SWEEP_MS);
			}
		};
		options.signal?.addEventListener("abort", onAbort);
		let exitCode: number;
		try {
			exitCode = await child.exited;
		} finally {
			leaderDone = true;
			if (timer) clearTimeout(timer);
			if (finishing) clearTimeout(finishing);
			options.signal?.removeEventListener("abort", onAbort);
			await stopping;
			// Its group now, what left the group (setsid, a double fork) in the sweep.
			trees.ended(tree);
			await trees.sweep();
		}
		const killedBy = child.signalCode ? { killedBy: String(child.signalCode) } : {};
		return {
			exitCode,
			stdout: readBack(files.stdout, OUTPUT_LIMIT_BYTES),
			stderr: readBack(files.stderr, OUTPUT_LIMIT_BYTES),
			...killedBy,
			timedOut,
			interrupted,
		};
	} finally {
		trees.close();
		closeSync(files.stdout);
		closeSync(files.stderr);
	}
}
