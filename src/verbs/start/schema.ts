import * as v from "valibot";
import { DryRunFlag } from "../../gate/schema.ts";

const text = (max: number, description: string) => v.optional(v.pipe(v.string(), v.maxLength(max), v.description(description)));

export const StartInput = v.strictObject({
	name: text(200, "Short name for the id and branch (slugged)."),
	title: text(500, "The task's title; names the id when `name` is absent."),
	brief: text(20_000, "What the task is, kept with the worktree."),
	from: text(500, "Ref to branch from; default the trunk."),
	dry_run: DryRunFlag,
});

export const StartData = v.strictObject({
	id: v.string(),
	branch: v.string(),
	path: v.pipe(v.string(), v.description("Absolute path of the new worktree: work there now.")),
	base: v.pipe(v.string(), v.description("The commit the branch starts from.")),
	title: v.nullable(v.string()),
	brief: v.nullable(v.string()),
	env: v.strictObject({ DISCERN_WORKTREE_ID: v.string(), DISCERN_WORKTREE_PORT: v.string() }),
	resources: v.array(v.string()),
	port: v.number(),
	rolled_back: v.optional(v.pipe(v.boolean(), v.description("A failed start: true when everything it created was removed again."))),
	left_behind: v.optional(v.pipe(v.array(v.string()), v.description("What the rollback could not remove."))),
});
export type StartData = v.InferOutput<typeof StartData>;
