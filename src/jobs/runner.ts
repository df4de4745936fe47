import { randomUUID } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ProgressEvent } from "../contract/context.ts";
import type { Step } from "../contract/envelope.ts";
import { forgetPersonSettings } from "../git/person-config.ts";
import { type JobTree, openTreeKeeper, type TreeKeeper } from "../platform/process-tree.ts";
import { programOutsideWorkTrees } from "../platform/trusted-program.ts";
import { remakeFolder } from "../state/dir.ts";
import { capLog, watchLog } from "./log-cap.ts";
import type { GatePlan, PlannedJob } from "./plan.ts";

/** How long a TERMed job tree gets before it is KILLed. */
export const DEFAULT_GRACE_MS = 2000;

export type JobOutcome = Step["outcome"];

export interface JobRun {
	job: PlannedJob;
	outcome: JobOutcome;
	durationS: number;
	exitCode?: number;
	/** The command that failed or timed out (a list-valued job stops at its first failure). */
	failedCommand?: string;
	timedOut: boolean;
	/** The combined output (its head and tail when it was cut); absent for jobs that never started. */
	logPath?: string;
	/** How much the job printed in all, when its log was cut to its head and tail. */
	outputBytes?: number;
	/** The job's declared report was written (or rewritten) by this run: a leftover must not pass for news. */
	reportFresh?: boolean;
	/**
	 * A measurement's output (a standard that ran to its end): the last MEASURED_TAIL_BYTES of its log, read
	 * through the descriptor its commands wrote to, before it is closed. The log's path is discern's, but any
	 * process can put another file there; what the gate judges is what the measurement printed.
	 */
	measured?: string;
}

/** How much of a measurement's output its metrics are read from: the last occurrence of a metric wins anyway. */
const MEASURED_TAIL_BYTES = 1024 * 1024;

export type RunEvent = ProgressEvent;
export interface RunOptions {
	root: string;
	/** The jobs' environment (already carrying DISCERN_ROOT and friends). */
	env: Record<string, string>;
	logDir: string;
	signal: AbortSignal;
	graceMs?: number;
	onEvent?: (event: RunEvent) => void;
	/** Told of each command as it starts (a list-valued job starts several): --verbose narration. */
	onCommand?: (job: PlannedJob, command: string) => void;
	/**
	 * Called after each phase that went green; a returned reason stops the run
	 * (tree drift). The runner stays ignorant of git.
	 */
	afterPhase?: (phase: readonly PlannedJob[]) => Promise<string | null>;
	/** Told of every job process as it starts, so that a later run can clean up if discern is killed outright. */
	ledger?: RunLedger;
	/** false: do not become a child subreaper, scan /proc instead (the fallback, chosen by platforms without prctl; and by tests). */
	subreaper?: boolean;
}

/** Where a run's job processes are written down while they run (jobs/leftovers.ts). */
export interface RunLedger {
	/** Every command's token value starts with it, followed by "-". */
	tokenPrefix: string;
	jobStarted: (leader: number) => void;
}

export interface RunReport {
	runs: JobRun[];
	/** The first job that failed (not cancelled), if any. */
	failed: JobRun | null;
	/** Set when `afterPhase` stopped the run. */
	stoppedBy: { reason: string; stage: string } | null;
	/** The caller's signal aborted the run (SIGINT, SIGTERM, MCP cancel). */
	interrupted: boolean;
}

/** A started job process, kept so fail-fast and interrupts can kill its tree. */
interface Running {
	child: ReturnType<typeof Bun.spawn>;
	tree: JobTree;
	/** Set when a cancel reached the process while it was still running. */
	cancelled: boolean;
}

interface RunState {
	/** Set by fail-fast. */
	requested: boolean;
	trees: TreeKeeper;
	/** A fresh token value for the next command. */
	nextToken: () => string;
}

/** The environment key of the per-command token (see platform/process-tree.ts). */
export const TOKEN_KEY = "DISCERN_JOB_TOKEN";

/**
 * Execute a plan: phases in order, the jobs of a phase together. Each
 * command runs as `sh -c` from the checkout root in its own process group,
 * stdin closed, its stdout and stderr written straight to one log file (so
 * discern's memory does not grow with a job's output).
 */
export async function runPlan(plan: Pick<GatePlan, "phases" | "failFast">, options: RunOptions): Promise<RunReport> {
	remakeFolder(options.logDir);
	const grace = options.graceMs ?? DEFAULT_GRACE_MS;
	const total = plan.phases.reduce((sum, phase) => sum + phase.length, 0);
	const runs: JobRun[] = [];
	const live = new Set<Running>();
	const trees = await openTreeKeeper(options.subreaper === undefined ? {} : { subreaper: options.subreaper });
	const tokenPrefix = options.ledger?.tokenPrefix ?? randomUUID();
	let commands = 0;
	// `requested` is set by fail-fast: a sibling between two of its commands must not start the next one.
	const halt: RunState = { requested: false, trees, nextToken: () => `${tokenPrefix}-${++commands}` };
	// What ended commands left running, killed after each phase.
	const sweep = () => trees.sweep();
	let stoppedBy: RunReport["stoppedBy"] = null;
	let failed: JobRun | null = null;
	let done = 0;

	const cancelAll = async () => {
		halt.requested = true;
		await Promise.all(
			[...live].map(async (running) => {
				// A job that already finished on its own keeps its own outcome.
				if (running.child.exitCode === null && running.child.signalCode === null) running.cancelled = true;
				await trees.kill(running.tree, grace);
			}),
		);
	};
	const onAbort = () => void cancelAll();
	options.signal.addEventListener("abort", onAbort);

	try {
		for (const phase of plan.phases) {
			if (failed || stoppedBy || options.signal.aborted) {
				for (const job of phase) runs.push({ job, outcome: "skipped", durationS: 0, timedOut: false });
				continue;
			}
			const phaseRuns = await Promise.all(
				phase.map(async (job, slot) => {
					options.onEvent?.({ type: "start", label: job.label, stage: job.stage, done, total });
					const run = await runJob(job, `${runs.length + slot + 1}`.padStart(2, "0"), options, live, grace, halt);
					done++;
					options.onEvent?.({ type: "finish", label: job.label, stage: job.stage, outcome: run.outcome, durationS: run.durationS, done, total });
					if (run.outcome === "failed") {
						failed ??= run;
						// A failing job cancels its running siblings, whole trees.
						if (plan.failFast) await cancelAll();
					}
					return run;
				}),
			);
			runs.push(...phaseRuns);
			// A job can have written the repository's configuration: git's next command reads it again (git/person-config.ts).
			forgetPersonSettings();
			const check = !failed && !options.signal.aborted ? options.afterPhase : undefined;
			// The check looks while the leftovers are swept. A sweep that found anything left behind (alive or just
			// reaped) means a process may have edited the tree after it was looked at: then it looks again, once
			// they are gone. A sweep whose every look was clear vouches that nothing was left to edit it.
			const [leftBehind, first] = await Promise.all([sweep(), check ? check(phase) : null]);
			const reason = first ?? (check && leftBehind ? await check(phase) : null);
			if (reason) stoppedBy = { reason, stage: phase[0]?.stage ?? "" };
		}
	} finally {
		options.signal.removeEventListener("abort", onAbort);
		await cancelAll();
		await sweep();
		trees.close();
		forgetPersonSettings();
	}
	return { runs, failed, stoppedBy, interrupted: options.signal.aborted };
}

const shells = new Map<string, string>();

/**
 * The `sh` every job runs under: never one a checkout put on PATH (a
 * `node_modules/.bin/sh` under `npm run`, a `.venv/bin/sh`), which would run
 * every job as it likes. Jobs still find their own tools on that PATH.
 */
function shellFor(path: string | undefined): string {
	const key = path ?? "";
	let shell = shells.get(key);
	if (!shell) {
		shell = programOutsideWorkTrees("sh", key) ?? "/bin/sh";
		shells.set(key, shell);
	}
	return shell;
}

/** How much of a job's label its log file's name keeps. */
const LOG_NAME_LABEL_CHARS = 80;

/** Run a job, then cut its log to its head and tail if it outgrew the bound (see log-cap.ts). */
async function runJob(...args: Parameters<typeof runJobCommands>): Promise<JobRun> {
	const run = await runJobCommands(...args);
	if (!run.logPath) return run;
	// A log that cannot be cut (a full disk) stays whole; the runs folder's total bound still applies.
	const cut = await capLog(run.logPath).catch(() => null);
	return cut && cut.omitted > 0 ? { ...run, outputBytes: cut.bytes } : run;
}

async function runJobCommands(job: PlannedJob, position: string, options: RunOptions, live: Set<Running>, grace: number, halt: RunState): Promise<JobRun> {
	const started = performance.now();
	// The position keeps names unique: `standard:cov` and a job `standard_cov` must not share a log,
	// nor two long labels cut to the same first characters (a file name holds 255 bytes at most).
	const logPath = join(options.logDir, `${position}-${job.label.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, LOG_NAME_LABEL_CHARS)}.log`);
	const reportBefore = job.report ? await fileStamp(join(options.root, job.report)) : null;
	const withReport = async (run: JobRun): Promise<JobRun> =>
		job.report ? { ...run, reportFresh: (await fileStamp(join(options.root, job.report))) !== reportBefore } : run;
	const fd = openLog(logPath);
	const watch = watchLog(fd);
	const seconds = () => Math.round((performance.now() - started) / 10) / 100;
	try {
		let lastExit = 0;
		for (const command of job.commands) {
			if (options.signal.aborted || halt.requested)
				return { job, outcome: "cancelled", durationS: seconds(), timedOut: false, logPath, failedCommand: command };
			// A list-valued job's log says which command printed what.
			if (job.commands.length > 1) writeSync(fd, `$ ${command}\n`);
			options.onCommand?.(job, command);
			const result = await runCommand(command, job.timeout, fd, options, live, grace, halt);
			lastExit = result.exitCode;
			if (result.cancelled)
				return { job, outcome: "cancelled", durationS: seconds(), timedOut: false, logPath, failedCommand: command, exitCode: result.exitCode };
			if (result.timedOut || (result.exitCode !== 0 && job.exitDecides)) {
				if (result.timedOut) writeSync(fd, `\n[discern] timed out after ${job.timeout} s: the whole process tree was killed\n`);
				return await withReport({
					job,
					outcome: "failed",
					durationS: seconds(),
					exitCode: result.exitCode,
					failedCommand: command,
					timedOut: result.timedOut,
					logPath,
				});
			}
		}
		const measured = job.kind === "standard" ? { measured: tailOf(fd) } : {};
		return await withReport({ job, outcome: "ok", durationS: seconds(), exitCode: lastExit, timedOut: false, logPath, ...measured });
	} finally {
		watch.stop();
		closeSync(fd);
	}
}

interface CommandResult {
	exitCode: number;
	timedOut: boolean;
	cancelled: boolean;
}

/**
 * Variables that change what a declared command's own words mean to sh:
 * CDPATH sends `cd api` to a folder named api anywhere it lists (a gate
 * passing on files it never judged), and ENV or BASH_ENV names a file the
 * shell reads before the command. A command runs as written, in its checkout.
 * (What would point a job's git at another repository is job-env.ts's list.)
 */
const SHELL_REDIRECTS = ["CDPATH", "ENV", "BASH_ENV"];

function shellSafe(env: Readonly<Record<string, string>>): Record<string, string> {
	const safe = { ...env };
	for (const key of SHELL_REDIRECTS) delete safe[key];
	return safe;
}

async function runCommand(
	command: string,
	timeoutS: number,
	fd: number,
	options: RunOptions,
	live: Set<Running>,
	grace: number,
	state: RunState,
): Promise<CommandResult> {
	let child: ReturnType<typeof Bun.spawn>;
	const token = { key: TOKEN_KEY, value: state.nextToken() };
	try {
		child = Bun.spawn([shellFor(options.env.PATH), "-c", command], {
			cwd: options.root,
			env: { ...shellSafe(options.env), [token.key]: token.value },
			stdin: "ignore",
			stdout: fd,
			stderr: fd,
			// setsid(): the job leads its own process group, so the whole tree can be signalled at once.
			detached: true,
		});
	} catch (error) {
		writeSync(fd, `[discern] could not start sh: ${error instanceof Error ? error.message : String(error)}\n`);
		return { exitCode: 127, timedOut: false, cancelled: false };
	}
	const tree: JobTree = { leader: child.pid, token };
	state.trees.started(tree);
	options.ledger?.jobStarted(child.pid);
	const running: Running = { child, tree, cancelled: false };
	live.add(running);
	let timedOut = false;
	let killing: Promise<void> | undefined;
	const timer =
		timeoutS > 0
			? setTimeout(() => {
					// A cancel got there first and its kill is under way: the job was cancelled, not timed out.
					if (running.cancelled) return;
					timedOut = true;
					killing = state.trees.kill(tree, grace);
				}, timeoutS * 1000)
			: undefined;
	try {
		const exitCode = await child.exited;
		return { exitCode, timedOut, cancelled: running.cancelled && !timedOut };
	} finally {
		if (timer) clearTimeout(timer);
		live.delete(running);
		// Whatever the command left running would outlive discern: its group now, detached daemons at the phase's sweep.
		await killing;
		state.trees.ended(tree);
	}
}

/** The end of what was written through `fd` (opened for reading too, see `openLog` below). */
function tailOf(fd: number): string {
	const { size } = fstatSync(fd);
	const length = Math.min(size, MEASURED_TAIL_BYTES);
	const buffer = Buffer.alloc(length);
	const read = readSync(fd, buffer, 0, length, size - length);
	return buffer.toString("utf8", 0, read);
}

/**
 * A job's log, opened for writing (and reading: a measurement's output is read back through it). A job of the same phase may already have
 * removed the runs folder (discern's own state, not the tree): it is made
 * again, so that the run ends with its result rather than a crash.
 */
function openLog(path: string): number {
	// "w+", except that a link put in the log's place is refused, never written through (state/dir.ts).
	const flags = constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
	try {
		return openSync(path, flags, 0o600);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
		// Made again as it was, never through a link a job put in its place (`runs` linked to a person's folder).
		remakeFolder(dirname(path));
		return openSync(path, flags, 0o600);
	}
}

/** Size, mtime and inode of a file, or null when it does not exist. */
async function fileStamp(path: string): Promise<string | null> {
	const found = await stat(path).catch(() => null);
	return found ? `${found.size}:${found.mtimeMs}:${found.ino}` : null;
}
