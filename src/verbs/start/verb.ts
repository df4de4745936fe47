import { defineVerb } from "../../contract/verb.ts";
import { StartData, StartInput } from "./schema.ts";

/** `start`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const startVerb = defineVerb({
	name: "start",
	title: "Start: a fresh worktree and branch for one task",
	summary: "A new worktree on a new branch from the trunk, with its env values, resources and setup steps; rolled back whole on any failure.",
	mcpDescription:
		"Call it before changing code for a new task: a new git worktree on a new branch from the trunk (or `from`), with the task's title and brief kept, the project's resources created and setup steps run. `data.path` is the absolute folder to work in from now on: edit, commit and run the gate there, not in the main checkout. Refuses outside the main checkout (not_main_checkout), without a trunk (no_trunk), when the branch or folder exists (write_denied: never adopts one), while the repository is locked (locked). A failing resource or setup step (gate_failed, with diagnostics) rolls back everything it created. `dry_run: true` shows the plan.",
	mcpGuide: {
		step: "task",
		text: "Each task gets its own worktree: from the main checkout call discern_start (a title, a brief); the working root moves there (`data.path`).",
	},
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
