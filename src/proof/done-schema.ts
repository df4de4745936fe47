import * as v from "valibot";
import { DryRunFlag } from "../contract/dry-run.ts";
import { FailedStageField } from "../jobs/schema.ts";
import { StandardReading } from "../standards/verdict.ts";

export const DoneInput = v.strictObject({
	dry_run: DryRunFlag,
	rerun: v.optional(v.pipe(v.boolean(), v.description("Run the gate even when this exact tree already has a result, red or green."))),
	standalone: v.optional(v.pipe(v.boolean(), v.description("Run on a dirty tree for diagnosis; can never earn a Proof."))),
});

export const ProofSummary = v.strictObject({
	line: v.pipe(v.string(), v.description("One sentence to relay verbatim.")),
	head: v.string(),
	tree: v.string(),
	branch: v.string(),
	trunk: v.pipe(
		v.strictObject({ name: v.nullable(v.string()), sha: v.nullable(v.string()) }),
		v.description("The trunk this Proof was judged against: landing elsewhere needs a new gate run."),
	),
	time: v.string(),
});

export const DoneData = v.strictObject({
	failed_stage: FailedStageField,
	scopes_changed: v.pipe(v.array(v.string()), v.description("Configured scopes this branch and tree touch, in declaration order.")),
	all_scopes_because: v.optional(
		v.pipe(v.string(), v.description("Why every scope counted as changed: the branch is the trunk itself, or git could not list the branch's changes.")),
	),
	standards: v.array(StandardReading),
	loosened: v.optional(
		v.pipe(
			v.array(v.strictObject({ standard: v.string(), field: v.string(), before: v.nullable(v.string()), after: v.nullable(v.string()) })),
			v.description("How this branch loosens the trunk's standards, field by field (old → new; `standard` for a deleted one)."),
		),
	),
	gate_ran: v.pipe(v.boolean(), v.description("False when a current Proof already covered this exact tree.")),
	proof: v.nullable(ProofSummary),
	standalone: v.boolean(),
	drift: v.optional(v.strictObject({ stage: v.string(), files: v.array(v.string()) })),
	interrupted: v.boolean(),
});
export type DoneData = v.InferOutput<typeof DoneData>;
