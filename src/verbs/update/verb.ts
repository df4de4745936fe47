import { defineVerb } from "../../contract/verb.ts";
import { UpdateData, UpdateInput } from "./schema.ts";

/** `update`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const updateVerb = defineVerb({
	name: "update",
	title: "Update: merge the trunk into this worktree's branch",
	summary: "Merge the trunk (or --from REF) into this worktree's branch, never a rebase; then run [worktree].setup.ensure.",
	mcpDescription:
		"Call it when discern_done or discern_accept says the trunk moved: merges the trunk (or `from`) into this worktree's branch, never a rebase, then runs the project's setup.ensure. Re-read the files in `data.overlap`: this branch changed them too. Refuses the main checkout (not_in_worktree), uncommitted tracked changes, untracked or ignored files at any path the merge would write (dirty_worktree, naming them), and a branch named as the trunk (awaiting_consent). A conflict is aborted, the branch left as it was (conflict, naming the files). `dry_run: true` lists what would come in.",
	mcpGuide: { step: "iterate", text: "discern_update merges the trunk in when it moved (never a rebase)." },
	group: "Daily loop",
	input: UpdateInput,
	data: UpdateData,
	errors: [
		"no_repository",
		"no_project",
		"invalid_config",
		"not_in_worktree",
		"dirty_worktree",
		"detached_head",
		"awaiting_consent",
		"no_trunk",
		"unknown_target",
		"conflict",
		"gate_failed",
		"locked",
		"write_denied",
		"interrupted",
	] as const,
	extras: ["plan", "diagnostics"],
	lock: "checkout",
	annotations: "mutatingIdempotent",
	exposure: { tool: "discern_update", project: true },
	cli: { examples: ["discern update", "discern update --dry-run", "discern update --from release-2"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
