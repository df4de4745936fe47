import type { ProgressEvent } from "../contract/context.ts";
import type { Diagnostic, Step } from "../contract/envelope.ts";
import { diagnosticsOf, stepsOf } from "../findings/diagnostics.ts";
import type { PlannedJob } from "../jobs/plan.ts";
import { type RunLedger, runPlan } from "../jobs/runner.ts";

/**
 * One command declared in discern.toml (a resource's create or destroy, a
 * setup step), run in a worktree through the gate's runner: `sh -c` in its
 * own process group, a timeout that kills the whole tree, output to a log.
 * Only declared command text reaches here; values put into it were made
 * shell-safe first (tokens.ts).
 */
export interface DeclaredCommand {
	label: string;
	kind: Extract<PlannedJob["kind"], "resource" | "setup_step" | "ensure">;
	command: string;
}

export interface DeclaredRun {
	ok: boolean;
	interrupted: boolean;
	step: Step | undefined;
	diagnostics: Diagnostic[];
}

export interface DeclaredOptions {
	cwd: string;
	env: Record<string, string>;
	signal: AbortSignal;
	logDir: string;
	/** Seconds; 0 = unbounded. */
	timeoutS: number;
	onEvent?: (event: ProgressEvent) => void;
	/** Where the run's processes are recorded (jobs/leftovers.ts): a later discern stops what a killed one left running, and a caller knows whether a command still runs. */
	ledger?: RunLedger;
}

export async function runDeclared(declared: DeclaredCommand, options: DeclaredOptions): Promise<DeclaredRun> {
	const job: PlannedJob = {
		label: declared.label,
		stage: "setup",
		kind: declared.kind,
		exitDecides: true,
		commands: [declared.command],
		timeout: options.timeoutS,
	};
	const report = await runPlan(
		{ phases: [[job]], failFast: true },
		{
			root: options.cwd,
			env: options.env,
			logDir: options.logDir,
			signal: options.signal,
			...(options.onEvent ? { onEvent: options.onEvent } : {}),
			...(options.ledger ? { ledger: options.ledger } : {}),
		},
	);
	const run = report.runs[0];
	return {
		ok: !report.failed && !report.interrupted && run?.outcome === "ok",
		interrupted: report.interrupted,
		step: stepsOf(report.runs)[0],
		diagnostics: await diagnosticsOf(report.runs, options.cwd),
	};
}
