import * as v from "valibot";
import { PROOF_STATES } from "../proof/checkout-state.ts";
import type { FleetWorktree } from "./fleet.ts";

/** One worktree as a result reports it: small, typed, the same in `worktree list` and `status`. */
export const WorktreeItem = v.strictObject({
	id: v.pipe(v.nullable(v.string()), v.description("Its task id; null when discern did not start it.")),
	title: v.nullable(v.string()),
	branch: v.pipe(v.nullable(v.string()), v.description("null when HEAD is detached.")),
	path: v.string(),
	main: v.pipe(v.boolean(), v.description("The main checkout (never dropped or pruned).")),
	created_by_discern: v.pipe(v.boolean(), v.description("`start` made it.")),
	clean: v.pipe(v.nullable(v.boolean()), v.description("No changes, judged as `status` and `done` judge them; null when git could not tell.")),
	ahead: v.pipe(v.nullable(v.number()), v.description("Commits not on the trunk; 0 means its work has landed.")),
	behind: v.pipe(v.nullable(v.number()), v.description("Trunk commits it lacks.")),
	proof: v.pipe(v.picklist(PROOF_STATES), v.description("Its Proof, judged as `status` judges one checkout.")),
	last_activity: v.pipe(v.nullable(v.string()), v.description("Its latest commit or gate run (ISO 8601).")),
	problem: v.pipe(v.nullable(v.string()), v.description("Why its folder cannot be read; null when it can.")),
	locked: v.pipe(v.boolean(), v.description("Locked with `git worktree lock`: git keeps it, and drop and prune leave it.")),
	landed: v.pipe(
		v.nullable(v.boolean()),
		v.description("Committed beyond its start and all on the trunk; false when nothing was committed; null when unknown."),
	),
});
export type WorktreeItem = v.InferOutput<typeof WorktreeItem>;

export function toItem(worktree: FleetWorktree): WorktreeItem {
	return {
		id: worktree.id,
		title: worktree.title,
		branch: worktree.branch,
		path: worktree.path,
		main: worktree.main,
		created_by_discern: worktree.created_by_discern,
		clean: worktree.clean,
		ahead: worktree.ahead,
		behind: worktree.behind,
		proof: worktree.proof.state,
		last_activity: worktree.last_activity,
		problem: worktree.problem,
		locked: worktree.locked,
		landed: worktree.landed,
	};
}

/** A resource ledger whose worktree is gone (deleted by hand, pruned by git): its resources may still exist. */
export const OrphanedLedger = v.strictObject({
	id: v.string(),
	path: v.pipe(v.string(), v.description("Where the worktree was.")),
	resources: v.pipe(v.array(v.string()), v.description("Resources not yet destroyed; `worktree drop ID --force` destroys them.")),
});
export type OrphanedLedger = v.InferOutput<typeof OrphanedLedger>;
