import type { VerbContext } from "../contract/context.ts";
import type { Diagnostic, Step } from "../contract/envelope.ts";
import type { Say } from "../contract/refer.ts";
import { diagnosticsOf, stepsOf } from "../findings/diagnostics.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import { worktreeSetupHint } from "../setup/after-setup.ts";
import { jobEnvironment } from "./job-env.ts";
import { killLeftovers, openLedger } from "./leftovers.ts";
import type { GatePlan, PlannedJob } from "./plan.ts";
import { newRunDir, pruneRuns } from "./run-folders.ts";
import { type JobRun, type RunReport, runPlan } from "./runner.ts";

export interface Execution {
	report: RunReport;
	steps: Step[];
	diagnostics: Diagnostic[];
	durationS: number;
	/**
	 * What an earlier run in this checkout left running because its discern was
	 * killed outright, killed now: one sentence each, for the result's hints.
	 */
	leftovers: string[];
}

/** Run a plan in a checkout: logs under its git dir, the jobs' environment, progress to whoever listens. */
export async function executePlan(
	ctx: VerbContext,
	repository: RepositoryLocation,
	trunk: string | null,
	plan: GatePlan,
	afterPhase?: (phase: readonly PlannedJob[]) => Promise<string | null>,
): Promise<Execution> {
	const started = performance.now();
	// The ledger is written before the first job starts, removed once the last is gone: what the next run reads if
	// discern is killed outright. It is written after the last run's is read (and removed), never before.
	const [[leftovers, ledger], logDir] = await Promise.all([
		killLeftovers(repository.gitDir).then(async (killed) => [killed, await openLedger(repository.gitDir)] as const),
		newRunDir(repository.gitDir, plan.verb, { prune: false }),
	]);
	// Older runs make room while this one's jobs start (housekeeping: it never fails the run, never touches this run's folder).
	// Only they are weighed: this run's logs are being written, and a size read mid-write (a job that prints 10 MB at once)
	// would push out runs that fit beside its capped logs. Its own size is weighed once it has ended, below.
	const pruning = pruneRuns(logDir, { weighCurrent: false }).catch(() => undefined);
	let report: RunReport;
	try {
		report = await runPlan(plan, {
			root: repository.root,
			env: jobEnvironment(ctx.env, repository, trunk),
			logDir,
			signal: ctx.signal,
			ledger,
			...(ctx.progress ? { onEvent: ctx.progress } : {}),
			...(ctx.narrate ? { onCommand: narrateCommand(ctx.narrate) } : {}),
			...(afterPhase ? { afterPhase } : {}),
		});
	} catch (error) {
		await ledger.close();
		throw error;
	}
	// Now that this run's size is known, older runs make room for it, and the ledger goes (every job is gone), while the diagnostics are read.
	const [diagnostics] = await Promise.all([diagnosticsOf(report.runs, repository.root), pruning.then(() => pruneRuns(logDir)), ledger.close()]);
	return {
		leftovers,
		report,
		steps: stepsOf(report.runs),
		diagnostics,
		durationS: Math.round((performance.now() - started) / 100) / 10,
	};
}

function narrateCommand(narrate: NonNullable<VerbContext["narrate"]>): (job: PlannedJob, command: string) => void {
	return (job, command) => narrate({ type: "command", label: job.label, stage: job.stage, command });
}

/** "lint failed (exit 2)" / "test timed out after 600 s"; "…; typecheck failed too (exit 1)" — the sentence for a red run, naming every job that failed. */
export function failureSentence(report: RunReport): string {
	if (report.interrupted) return "The run was interrupted; every job's process tree was stopped";
	const failed = report.failed;
	if (!failed) return "The run failed";
	const first = failed.timedOut ? `${failed.job.label} timed out after ${failed.job.timeout} s` : `${failed.job.label} failed (exit ${failed.exitCode ?? "?"})`;
	// Siblings of its phase that finished red before they could be stopped.
	const others = report.runs
		.filter((run) => run.outcome === "failed" && run !== failed)
		.map((run) => (run.timedOut ? `${run.job.label} timed out` : `${run.job.label} (exit ${run.exitCode ?? "?"})`));
	return others.length > 0 ? `${first}; also failed: ${others.join(", ")}` : first;
}

/**
 * Failed jobs whose failure says more about the machine than about the tree:
 * a program the shell could not find (exit 127) or could not execute (126),
 * or a job stopped at its time limit. Running the same tree again after the
 * machine is fixed can pass, so such a run is never the tree's verdict.
 */
export function machineFailures(report: RunReport): JobRun[] {
	return report.runs.filter((run) => run.outcome === "failed" && (run.timedOut || run.exitCode === 127 || run.exitCode === 126));
}

/** What went wrong with the machine for one such job, in words. */
export function machineFailureWords(run: JobRun): string {
	if (run.timedOut) return `${run.job.label} ran out of its ${run.job.timeout} s`;
	return run.exitCode === 127
		? `${run.job.label}: a program it runs was not found (exit 127)`
		: `${run.job.label}: a program it runs could not be executed (exit 126)`;
}

/**
 * In a task worktree a program not found (exit 127) is most often a
 * dependency the worktree's setup installs and has not (yet): say so, and
 * how to get it (setup/after-setup.ts). None elsewhere.
 */
export function worktreeSetupRemedy(
	say: Say,
	report: RunReport,
	location: "main" | "worktree",
	setup: { steps: readonly string[]; ensure: readonly string[] },
): string[] {
	if (location !== "worktree" || !report.runs.some((run) => run.outcome === "failed" && run.exitCode === 127)) return [];
	return [`In a task worktree a program not found is usually one its setup installs. ${worktreeSetupHint(say, setup, [])}`];
}

export function ranLabels(report: RunReport): string[] {
	return report.runs.filter((run) => run.outcome === "ok").map((run) => run.job.label);
}
