import type { GatePlan, PlannedJob } from "../../src/jobs/plan.ts";

/** A check-stage job whose exit code decides, as the runner gets it from a plan. */
export function plannedJob(label: string, commands: string[], extra: Partial<PlannedJob> = {}): PlannedJob {
	return { label, stage: "check", kind: "job", exitDecides: true, commands, timeout: 0, ...extra };
}

/** A `done` plan of these phases, nothing skipped. */
export function gatePlan(phases: PlannedJob[][], failFast = true): GatePlan {
	return { verb: "done", phases, skipped: [], failFast };
}
