import * as v from "valibot";
import { DryRunFlag } from "../../contract/dry-run.ts";
import type { Result } from "../../contract/envelope.ts";
import { SEED_OUTCOMES } from "../../worktree/seed.ts";

const text = (max: number, description: string) => v.optional(v.pipe(v.string(), v.maxLength(max), v.description(description)));

export const StartInput = v.strictObject({
	name: text(200, "Names the id (slugged)."),
	title: text(500, "The task's title."),
	brief: text(20_000, "What the task is."),
	from: text(500, "Ref to start from; default the trunk."),
	dry_run: DryRunFlag,
});

export const StartData = v.strictObject({
	id: v.string(),
	branch: v.string(),
	path: v.pipe(v.string(), v.description("Work here now.")),
	base: v.string(),
	title: v.nullable(v.string()),
	brief: v.nullable(v.string()),
	env: v.strictObject({ DISCERN_WORKTREE_ID: v.string(), DISCERN_WORKTREE_PORT: v.string() }),
	resources: v.array(v.string()),
	port: v.number(),
	/** `[worktree].seed`, in its order: what was copied from the main checkout, and why the rest was not. */
	seeds: v.optional(
		v.array(
			v.strictObject({
				path: v.string(),
				outcome: v.pipe(
					v.picklist(SEED_OUTCOMES),
					v.description("copied; missing (not in the main checkout); present (the worktree has something there); refused (not safe); failed."),
				),
				why: v.optional(v.string()),
			}),
		),
	),
	/** A failed start: whether everything it created was removed again, and what was not. */
	rolled_back: v.optional(v.boolean()),
	left_behind: v.optional(v.array(v.string())),
});
export type StartData = v.InferOutput<typeof StartData>;

export type StartResult = Result<"start", StartData>;
