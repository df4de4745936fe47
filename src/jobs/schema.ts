import * as v from "valibot";
import { DryRunFlag } from "../contract/dry-run.ts";

/** Where a gate run stopped. Stages first, then the checks around them. */
export const FAILED_STAGES = ["fix", "build", "check", "test", "scopes", "tree_drift", "standards", "instructions"] as const;
export type FailedStage = (typeof FAILED_STAGES)[number];

export const FailedStageField = v.pipe(
	v.nullable(v.picklist(FAILED_STAGES)),
	v.description("The stage that failed, `tree_drift` when a job changed tracked files, or null when green."),
);

/** `prepare` and `test`: the fast inner loop. */
export const InnerLoopInput = v.strictObject({ dry_run: DryRunFlag });

export const InnerLoopData = v.strictObject({
	failed_stage: FailedStageField,
	modified: v.pipe(v.array(v.string()), v.description("Tracked files whose state the run changed (a formatter's edits to review).")),
	interrupted: v.boolean(),
});
export type InnerLoopData = v.InferOutput<typeof InnerLoopData>;
