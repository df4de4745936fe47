import { defineVerb } from "../../contract/verb.ts";
import { UpdateData, UpdateInput } from "./schema.ts";

/** `update`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const updateVerb = defineVerb({
	name: "update",
	title: "Update: merge the trunk into this worktree's branch",
	summary: "Merge the trunk (or --from REF) into this worktree's branch, never a rebase; then run [worktree].setup.ensure.",
	mcpDescription:
		"Merges the trunk (or `from`) into this worktree's branch: a fast-forward or a merge commit, never a rebase. Call it when discern_done or discern_accept says the trunk moved (behind_trunk, trunk_moved). Afterwards re-read the files in `data.overlap`: this branch changed them too. Refuses the main checkout (not_in_worktree) and uncommitted changes to tracked files (dirty_worktree: commit first). A conflict aborts the merge and leaves the branch as it was (conflict, naming the files): merge by hand with git, or ask the owner. `dry_run: true` lists what would come in.",
	group: "Daily loop",
	input: UpdateInput,
	data: UpdateData,
	errors: ["no_repository", "no_project", "invalid_config", "not_in_worktree", "dirty_worktree", "detached_head", "no_trunk", "unknown_target", "conflict", "gate_failed", "locked", "write_denied", "interrupted"] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "checkout",
	annotations: "mutatingIdempotent",
	exposure: { tool: "discern_update", project: true },
	cli: { examples: ["discern update", "discern update --dry-run", "discern update --from release-2"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
