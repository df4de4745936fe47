import { defineVerb } from "../../contract/verb.ts";
import { StartData, StartInput } from "./schema.ts";

/** `start`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const startVerb = defineVerb({
	name: "start",
	title: "Start: a fresh worktree and branch for one task",
	summary: "A new worktree on a new branch from the trunk, with its env values, resources and setup steps; rolled back whole on any failure.",
	mcpDescription:
		"Call it before changing code for a new task: it creates a new git worktree on a new branch (`<branch_prefix><id>`) from the trunk (or `from`), records the task's title and brief, creates the project's declared resources and runs its setup steps there. `data.path` is the absolute folder to work in from now on: edit, commit and run the gate there, never in the main checkout. Give `title` (and `brief`) so the task is kept with the worktree; `name` sets the id's readable part. Refuses outside the main checkout (not_main_checkout), without a trunk (no_trunk), when the branch or folder already exists (write_denied: it never adopts one), and while another writer holds the repository lock (locked). A failing resource or setup step (gate_failed, with diagnostics) rolls back everything this call created. `dry_run: true` shows the plan and creates nothing.",
	group: "Daily loop",
	input: StartInput,
	data: StartData,
	errors: ["no_repository", "no_project", "invalid_config", "not_main_checkout", "no_trunk", "gate_failed", "locked", "write_denied", "interrupted"] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "repository",
	annotations: "mutating",
	exposure: { tool: "discern_start", project: true },
	cli: { examples: ['discern start --title "Fix the login redirect"', "discern start --name login-fix --from release-2", "discern start --dry-run"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
