import { defineVerb } from "../../contract/verb.ts";
import { AcceptData, AcceptInput } from "./schema.ts";

/** `accept`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const acceptVerb = defineVerb({
	name: "accept",
	title: "Accept: land a worktree's proven commit on the trunk",
	summary: "Land the worktree's proven commit on the trunk (fast-forward, compare-and-swap), note its Proof, and remove the worktree.",
	mcpDescription:
		"Lands a worktree's proven commit on the trunk: a fast-forward to the exact commit discern_done proved, then a git note with the Proof, then the worktree, its resources and its merged branch are removed; `data.main_path` is where work continues. Consent: pass `confirmed: true` only when the owner approved THIS landing in this conversation, after you relayed the Proof line; never on your own judgement, never carried over from an earlier landing. Without it the call changes nothing and returns awaiting_consent with the Proof line: relay it verbatim and ask. (Changes only in scopes the trunk's committed config pre-authorizes need no consent.) Run it in the worktree, or from the main checkout with `target` (id, path or branch). Runs the gate first when no current Proof covers HEAD. Refuses a dirty tree (dirty_worktree), a red gate (gate_failed), a trunk that moved since the Proof or is not an ancestor (trunk_moved: update, done, accept again), a main checkout on the trunk with uncommitted changes, and a busy repository (locked). partial_acceptance: it landed but cleanup stopped; call it again to finish (never lands twice). `dry_run: true` shows the plan and needs no consent.",
	group: "Daily loop",
	input: AcceptInput,
	data: AcceptData,
	errors: [
		"no_repository",
		"no_project",
		"invalid_config",
		"not_main_checkout",
		"not_in_worktree",
		"dirty_worktree",
		"detached_head",
		"no_trunk",
		"trunk_moved",
		"gate_failed",
		"unchanged_tree_rerun",
		"awaiting_consent",
		"locked",
		"partial_acceptance",
		"unknown_target",
		"write_denied",
		"nothing_to_prove",
		"interrupted",
	] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "repository",
	annotations: "destructive",
	exposure: { tool: "discern_accept", project: true },
	cli: { examples: ["discern accept", "discern accept --dry-run", "discern accept --confirmed", "discern accept --target fix-login-3f2a1c --confirmed"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
