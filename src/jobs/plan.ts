import { type Job, resolveJobs } from "../config/jobs.ts";
import type { DiscernConfig, Stage } from "../config/schema.ts";
import type { PlanItem } from "../contract/envelope.ts";
import { plural } from "../text/plural.ts";

/** The gate verbs, each running a different part of the plan. */
export type GateVerb = "prepare" | "test" | "done";

/** One unit of work the runner executes: a job, a scope's gate command, or a standard's measurement. */
export interface PlannedJob {
	label: string;
	/** The stage it belongs to; scope gates run in `scopes`, measurements in `standards`, a worktree's declared commands in `setup`. */
	stage: Stage | "scopes" | "standards" | "setup";
	kind: "job" | "scope_gate" | "standard" | "resource" | "setup_step" | "ensure";
	/** False for standards: their metric decides, not their exit code. */
	exitDecides: boolean;
	commands: string[];
	/** Seconds per command; 0 = unbounded. */
	timeout: number;
	report?: string;
}

/**
 * A plan is data: the phases to run in order, each a set of jobs that run
 * together. `--dry-run` shows it; the runner executes exactly it.
 */
export interface GatePlan {
	/** The verb it runs for (`standards` measures alone: see `planStandards`). */
	verb: GateVerb | "standards";
	phases: PlannedJob[][];
	/** What the plan leaves out and why (shown in dry runs). */
	skipped: { label: string; kind: PlannedJob["kind"]; stage: string; note: string }[];
	failFast: boolean;
}

export interface PlanOptions {
	/** Scopes whose paths changed (done only); their `gate` commands join the plan. */
	scopesChanged?: readonly string[];
}

export function planGate(verb: GateVerb, config: DiscernConfig, options: PlanOptions = {}): GatePlan {
	const jobs = resolveJobs(config);
	const skipped: GatePlan["skipped"] = [];
	const runnable = (job: Job): boolean => {
		if (job.commands.length > 0) return true;
		skipped.push({ label: job.name, kind: "job", stage: job.stage, note: "no command (empty or `:`)" });
		return false;
	};
	const inStage = (stage: Stage) =>
		jobs
			.filter((job) => job.stage === stage)
			.filter(runnable)
			.map(toPlanned);
	const wanted: Record<GateVerb, Stage[]> = { prepare: ["fix", "check"], test: ["test"], done: ["fix", "build", "check", "test"] };
	for (const job of jobs) {
		if (!wanted[verb].includes(job.stage))
			skipped.push({ label: job.name, kind: "job", stage: job.stage, note: `${job.stage} stage is not part of \`${verb}\`` });
	}

	const phases: PlannedJob[][] = [];
	// Formatters may edit the same files: one at a time, in declaration order.
	if (wanted[verb].includes("fix")) for (const job of inStage("fix")) phases.push([job]);
	if (verb === "prepare") phases.push(inStage("check"));
	if (verb === "test") phases.push(inStage("test"));
	if (verb === "done") {
		phases.push(inStage("build"));
		// Checks, tests and standard measurements do not depend on each other: run them together.
		phases.push([...inStage("check"), ...inStage("test"), ...measurements(config)]);
		phases.push(scopeGates(config, options.scopesChanged ?? [], skipped));
	}
	return { verb, phases: phases.filter((phase) => phase.length > 0), skipped, failFast: config.gate.fail_fast };
}

function toPlanned(job: Job): PlannedJob {
	return {
		label: job.name,
		stage: job.stage,
		kind: "job",
		exitDecides: true,
		commands: job.commands,
		timeout: job.timeout,
		...(job.report ? { report: job.report } : {}),
	};
}

export const STANDARD_PREFIX = "standard:";

/**
 * The standards' measurements alone, the selected ones (default all) in
 * declaration order: what `standards` runs. The same jobs `done` runs
 * beside its checks and tests, so the two verbs measure alike.
 */
export function planStandards(config: DiscernConfig, names?: readonly string[]): GatePlan {
	const jobs = measurements(config).filter((job) => !names || names.includes(job.label.slice(STANDARD_PREFIX.length)));
	return { verb: "standards", phases: jobs.length > 0 ? [jobs] : [], skipped: [], failFast: false };
}

function measurements(config: DiscernConfig): PlannedJob[] {
	return Object.entries(config.standards).map(([name, standard]) => ({
		label: `${STANDARD_PREFIX}${name}`,
		stage: "standards",
		kind: "standard",
		exitDecides: false,
		commands: [standard.run],
		timeout: config.gate.timeout,
	}));
}

function scopeGates(config: DiscernConfig, changed: readonly string[], skipped: GatePlan["skipped"]): PlannedJob[] {
	const gates: PlannedJob[] = [];
	for (const [name, scope] of Object.entries(config.scopes)) {
		if (!scope.gate || scope.gate.trim() === "" || scope.gate.trim() === ":") continue;
		const label = `scope:${name}`;
		if (scope.neutral) skipped.push({ label, kind: "scope_gate", stage: "scopes", note: "neutral scope: never gated" });
		else if (!changed.includes(name)) skipped.push({ label, kind: "scope_gate", stage: "scopes", note: "scope unchanged" });
		else gates.push({ label, stage: "scopes", kind: "scope_gate", exitDecides: true, commands: [scope.gate], timeout: config.gate.timeout });
	}
	return gates;
}

/** Every job the plan would run, in order, then what it skips: the `plan` of a dry run. */
export function planItems(plan: GatePlan): PlanItem[] {
	const items: PlanItem[] = [];
	plan.phases.forEach((phase, index) => {
		const together = phase.length > 1 ? `; runs alongside ${plural(phase.length - 1, "other job")}` : "";
		for (const job of phase) {
			items.push({
				kind: job.kind,
				label: job.label,
				disposition: "run",
				note: `phase ${index + 1}, ${job.stage} stage: ${job.commands.join(" && ")}${together}`,
			});
		}
	});
	for (const skip of plan.skipped) items.push({ kind: skip.kind, label: skip.label, disposition: "skip", note: skip.note });
	return items;
}
