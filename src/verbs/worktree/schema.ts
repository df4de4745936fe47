import * as v from "valibot";
import { OrphanedLedger, WorktreeItem } from "../../worktree/item.ts";
import { NestedRepository } from "../../worktree/nested-repos.ts";

const DryRun = v.optional(v.pipe(v.boolean(), v.description("Show what would happen; change nothing.")));

export const WorktreeListInput = v.strictObject({});

export const WorktreeTeardownInput = v.strictObject({ dry_run: DryRun });

export const WorktreeEnsureInput = v.strictObject({
	main_checkout: v.optional(
		v.pipe(
			v.boolean(),
			v.description(
				"Run them in the main checkout too. Without it, ensure runs nothing there: the main checkout's installed dependencies are the person's (an install such as `npm ci` deletes and rebuilds them).",
			),
		),
	),
	dry_run: DryRun,
});

export const WorktreeDropInput = v.strictObject({
	id: v.pipe(
		v.string(),
		v.minLength(1),
		v.maxLength(4096),
		v.description("The worktree: its task id, its branch, or its path; or a unique prefix of its id or branch."),
	),
	force: v.optional(v.pipe(v.boolean(), v.description("Drop it even with uncommitted changes or commits the trunk lacks (its tip is saved first)."))),
	dry_run: DryRun,
});

export const WorktreePruneInput = v.strictObject({
	yes: v.optional(v.pipe(v.boolean(), v.description("Remove what the plan lists without asking."))),
	dry_run: DryRun,
});

export const WorktreeListData = v.strictObject({
	trunk: v.nullable(v.string()),
	worktrees: v.array(WorktreeItem),
	orphaned_ledgers: v.pipe(v.array(OrphanedLedger), v.description("Resource ledgers whose worktree is gone: their resources may still exist.")),
});
export type WorktreeListData = v.InferOutput<typeof WorktreeListData>;

const Failed = v.array(v.strictObject({ name: v.string(), message: v.string() }));

export const WorktreeTeardownData = v.strictObject({
	id: v.nullable(v.string()),
	path: v.string(),
	destroyed: v.pipe(v.array(v.string()), v.description("Resources destroyed, in the order they were.")),
	failed: Failed,
});
export type WorktreeTeardownData = v.InferOutput<typeof WorktreeTeardownData>;

export const WorktreeEnsureData = v.strictObject({
	id: v.pipe(v.nullable(v.string()), v.description("The task id; null in the main checkout or a worktree discern did not start.")),
	path: v.string(),
	ran: v.pipe(v.number(), v.description("setup.ensure commands run.")),
	main_checkout: v.pipe(
		v.boolean(),
		v.description(
			"This is the main checkout: without --main-checkout nothing runs here (ran is 0), since [worktree.setup] is for the task worktrees discern starts.",
		),
	),
});
export type WorktreeEnsureData = v.InferOutput<typeof WorktreeEnsureData>;

export const WorktreeDropData = v.strictObject({
	worktree: WorktreeItem,
	recovery_ref: v.pipe(v.nullable(v.string()), v.description("Where the branch tip was saved before anything was removed.")),
	removed: v.boolean(),
	branch_deleted: v.boolean(),
	resources: v.strictObject({ destroyed: v.array(v.string()), failed: Failed }),
	nested_repositories: v.pipe(
		v.array(NestedRepository),
		v.description(
			"Git repositories inside the worktree (untracked, ignored, submodules). Drop refuses while one would lose something, and while one is untracked: the saved work cannot hold a repository.",
		),
	),
	ignored: v.pipe(v.array(v.string()), v.description("Ignored files and folders in it (a wholly ignored folder once): deleted with it, never saved.")),
	edited_env: v.pipe(
		v.array(v.string()),
		v.description(
			"Env files start copied into it that were edited there since, with no copy in the main checkout. Drop refuses while there is one, with --force too: an env file holds secrets, never saved into a git commit.",
		),
	),
});
export type WorktreeDropData = v.InferOutput<typeof WorktreeDropData>;

export const WorktreePruneData = v.strictObject({
	removed: v.array(v.strictObject({ path: v.string(), branch: v.nullable(v.string()), id: v.nullable(v.string()) })),
	skipped: v.array(v.strictObject({ path: v.string(), branch: v.nullable(v.string()), id: v.nullable(v.string()), reason: v.string() })),
	would_remove: v.pipe(v.array(v.string()), v.description("Paths the plan removes (with --yes or a yes).")),
});
export type WorktreePruneData = v.InferOutput<typeof WorktreePruneData>;
