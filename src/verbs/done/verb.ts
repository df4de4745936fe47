import { defineVerb } from "../../contract/verb.ts";
import { DoneData, DoneInput } from "../../proof/done-schema.ts";

/** `done`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const doneVerb = defineVerb({
	name: "done",
	title: "Done: the Gate on the committed tree, and a Proof when green",
	summary: "The Gate: every stage and the changed scopes' gates on the exact committed tree; a Proof when everything is green.",
	mcpDescription:
		"The bar for done: every stage of the project's declared gate, plus the gates of the scopes the branch touches, on the exact committed tree. Call it after committing, when you believe the work is finished; only a green discern_done may be reported as done. Green: `data.proof.line` is the Proof: relay it to the user verbatim, never paraphrased. Red: gate_failed with `data.failed_stage` and `diagnostics` (each names the command that reproduces it): fix, commit, call it again. On the trunk itself a Proof judges the trunk (there is nothing to land), and a red trunk is fixed in a task of its own (discern_start), never by a commit on the trunk. Refuses a dirty tree (dirty_worktree: commit first), a detached HEAD, a worktree branch behind its trunk (behind_trunk: merge the trunk), an unchanged tree whose last run was red (unchanged_tree_rerun: change something, or `rerun: true` for a flaky job) and a checkout where another gate runs (locked). An unchanged, already proven tree returns its Proof without running. `standalone: true` runs on a dirty tree for diagnosis and never earns a Proof; `dry_run: true` shows the plan. A gate can run for minutes; if your client times the call out, the run is stopped: ask the user to raise the tool timeout, or run `discern done` in a terminal.",
	mcpGuide: {
		step: "prove",
		text: "Commit, then call discern_done: the whole gate on the exact committed tree. A red result lists diagnostics, each with the command to reproduce it; fix, commit, call it again.",
	},
	group: "Daily loop",
	input: DoneInput,
	data: DoneData,
	errors: [
		"no_repository",
		"no_project",
		"invalid_config",
		"dirty_worktree",
		"detached_head",
		"no_trunk",
		"behind_trunk",
		"gate_failed",
		"unchanged_tree_rerun",
		"locked",
		"write_denied",
		"nothing_to_prove",
		"interrupted",
	] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "checkout",
	annotations: "mutating",
	exposure: { tool: "discern_done", project: true },
	cli: { examples: ["discern done", "discern done --dry-run", "discern done --standalone", "discern done --rerun"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
