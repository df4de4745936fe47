import { defineVerb } from "../../contract/verb.ts";
import { AcceptData, AcceptInput } from "./schema.ts";

/** `accept`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const acceptVerb = defineVerb({
	name: "accept",
	title: "Accept: land a worktree's proven commit on the trunk",
	summary: "Land the worktree's proven commit on the trunk (fast-forward, compare-and-swap), note its Proof, and remove the worktree.",
	mcpDescription:
		"Call it to land a worktree's proven commit on the trunk (exact fast-forward), note its Proof in git, and remove the worktree and its merged branch; `data.main_path` is where work continues. Pass `confirmed: true` (and `sha` from the Proof line) only when the owner approved THIS landing in this conversation after you relayed the Proof line; otherwise it changes nothing and returns awaiting_consent with the Proof line to relay. Runs in the worktree, or from the main checkout with `target`. Runs the gate when no current Proof covers HEAD. Refuses: dirty_worktree, gate_failed, trunk_moved (discern_update, discern_done, then this again), locked. partial_acceptance: landed, cleanup unfinished; call again. `dry_run: true` needs no consent.",
	mcpGuide: {
		step: "land",
		text: "Landing: relay the Proof line and ask the owner. Call discern_accept with `confirmed: true` only after the owner approved this landing in the conversation; without it, it refuses with awaiting_consent unless the trunk pre-authorizes the change.",
	},
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
	extras: ["plan", "diagnostics"],
	lock: "repository",
	annotations: "destructive",
	exposure: { tool: "discern_accept", project: true },
	cli: { examples: ["discern accept", "discern accept --dry-run", "discern accept --confirmed", "discern accept --target fix-login-3f2a1c --confirmed"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
