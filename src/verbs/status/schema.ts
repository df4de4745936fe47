import * as v from "valibot";
import { STAGES } from "../../config/schema.ts";
import { CHANGE_KINDS } from "../../git/status.ts";
import { TRUNK_SOURCES } from "../../git/trunk.ts";
import { FAILED_STAGES } from "../../jobs/schema.ts";
import { PROOF_STATES } from "../../proof/checkout-state.ts";
import { OrphanedLedger, WorktreeItem } from "../../worktree/item.ts";

export const StatusInput = v.strictObject({});

/** How many changed paths a status lists before it only counts. */
export const MAX_LISTED_CHANGES = 50;

export const JobsByStage = v.strictObject(
	Object.fromEntries(STAGES.map((stage) => [stage, v.array(v.string())])) as Record<
		(typeof STAGES)[number],
		v.ArraySchema<v.StringSchema<undefined>, undefined>
	>,
);

export const StatusData = v.strictObject({
	location: v.pipe(v.picklist(["main", "worktree"]), v.description("The main checkout, or a linked worktree.")),
	root: v.string(),
	project: v.strictObject({
		name: v.string(),
		config: v.pipe(v.picklist(["valid", "invalid", "missing"]), v.description("State of discern.toml.")),
		config_issues: v.number(),
	}),
	branch: v.pipe(v.nullable(v.string()), v.description("null when HEAD is detached.")),
	head: v.pipe(v.nullable(v.string()), v.description("Short sha; null on an unborn branch.")),
	trunk: v.strictObject({
		name: v.nullable(v.string()),
		source: v.picklist(TRUNK_SOURCES),
		exists: v.boolean(),
		contested: v.pipe(
			v.optional(v.array(v.strictObject({ branch: v.string(), names: v.string() }))),
			v.description(
				"Set when committed discern.tomls disagree on the trunk: each other branch and the trunk its discern.toml names. accept lands nothing until a person settles it.",
			),
		),
	}),
	clean: v.pipe(
		v.nullable(v.boolean()),
		v.description(
			"Clean as `done` judges it: a file only info/exclude or a global excludes file hides, an edited assume-unchanged or skip-worktree file, a FIFO or nested .git is a change. null when git could not tell: unknown is never clean.",
		),
	),
	changes: v.strictObject({
		total: v.number(),
		files: v.array(v.strictObject({ path: v.string(), kind: v.picklist(CHANGE_KINDS), staged: v.boolean() })),
		truncated: v.boolean(),
	}),
	ahead: v.pipe(v.nullable(v.number()), v.description("Commits on HEAD not on the trunk; null when unknown.")),
	behind: v.pipe(v.nullable(v.number()), v.description("Commits on the trunk not on HEAD; null when unknown.")),
	jobs: JobsByStage,
	proof: v.strictObject({
		state: v.pipe(
			v.picklist(PROOF_STATES),
			v.description("honored: a green Proof covers this exact HEAD and clean tree; red: the gate failed on this HEAD; stale: a Proof for something else."),
		),
		line: v.nullable(v.string()),
		failed_stage: v.pipe(v.nullable(v.picklist(FAILED_STAGES)), v.description("With `red`: the stage the last `done` of this commit failed.")),
	}),
	last_run: v.pipe(
		v.nullable(
			v.strictObject({
				verb: v.picklist(["prepare", "test", "done"]),
				ok: v.boolean(),
				failed_stage: v.nullable(v.string()),
				head: v.nullable(v.string()),
				time: v.string(),
				duration_s: v.number(),
			}),
		),
		v.description("The last gate run in this checkout."),
	),
	worktrees: v.pipe(v.optional(v.array(WorktreeItem)), v.description("In the main checkout: every linked worktree (the fleet). Absent in a worktree.")),
	orphaned_ledgers: v.pipe(v.optional(v.array(OrphanedLedger)), v.description("Main checkout: ledgers whose worktree is gone (resources may remain).")),
	task: v.pipe(
		v.optional(v.nullable(v.strictObject({ id: v.string(), title: v.nullable(v.string()), brief: v.nullable(v.string()) }))),
		v.description("In a worktree: its task; null when discern did not start it."),
	),
	stale_wiring: v.pipe(v.array(v.string()), v.description("Agent files refresh would change (done fails on them).")),
	next: v.strictObject({
		action: v.pipe(v.string(), v.description("The one thing to do next, usually a command.")),
		reason: v.string(),
	}),
});
export type StatusData = v.InferOutput<typeof StatusData>;
