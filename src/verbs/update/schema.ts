import * as v from "valibot";
import { DryRunFlag } from "../../contract/dry-run.ts";
import type { Result } from "../../contract/envelope.ts";

export const UpdateInput = v.strictObject({
	from: v.optional(v.pipe(v.string(), v.maxLength(1024), v.description("Merge this branch or commit instead of the trunk."))),
	dry_run: DryRunFlag,
});
export type UpdateInput = v.InferOutput<typeof UpdateInput>;

export const UpdateData = v.strictObject({
	from: v.string(),
	from_sha: v.nullable(v.string()),
	previous_head: v.nullable(v.string()),
	head: v.nullable(v.string()),
	merged: v.boolean(),
	fast_forward: v.boolean(),
	commits: v.array(v.strictObject({ sha: v.string(), subject: v.string() })),
	commits_total: v.number(),
	files: v.array(v.string()),
	files_total: v.number(),
	overlap: v.pipe(v.array(v.string()), v.description("Files this branch changed too since the merge base: re-read them.")),
	conflicts: v.array(v.string()),
	ensure_ran: v.number(),
});
export type UpdateData = v.InferOutput<typeof UpdateData>;
export type UpdateResult = Result<"update", UpdateData>;
