import { type DiscernConfig, type JobValue, knownStage, STAGES, type Stage } from "./schema.ts";

/** A job as the runner sees it: stage resolved, commands as a list. */
export interface Job {
	name: string;
	stage: Stage;
	commands: string[];
	/** Seconds; 0 = unbounded. */
	timeout: number;
	report?: string;
}

/** The stage a job runs in, or null for a custom job that forgot to say. */
export function stageOf(name: string, value: JobValue): Stage | null {
	if (typeof value === "object" && !Array.isArray(value) && value.stage) return value.stage;
	return knownStage(name) ?? null;
}

/** Jobs in declaration order with their stage; custom jobs without a stage are left out (config validation reports them). */
export function resolveJobs(config: DiscernConfig): Job[] {
	const jobs: Job[] = [];
	for (const [name, value] of Object.entries(config.jobs)) {
		const stage = stageOf(name, value);
		if (!stage) continue;
		const table = typeof value === "object" && !Array.isArray(value) ? value : null;
		const run = typeof value === "object" && !Array.isArray(value) ? value.run : value;
		const commands = (Array.isArray(run) ? run : [run]).filter((command) => command.trim() !== "" && command.trim() !== ":");
		jobs.push({
			name,
			stage,
			commands,
			timeout: table?.timeout ?? config.gate.timeout,
			...(table?.report ? { report: table.report } : {}),
		});
	}
	return jobs;
}

/** Job names grouped by stage, in stage order. */
export function jobsByStage(config: DiscernConfig): Record<Stage, string[]> {
	const grouped = Object.fromEntries(STAGES.map((stage) => [stage, [] as string[]])) as Record<Stage, string[]>;
	for (const job of resolveJobs(config)) grouped[job.stage].push(job.name);
	return grouped;
}
