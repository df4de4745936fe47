import { defineVerb } from "../../contract/verb.ts";
import {
	WorktreeDropData,
	WorktreeDropInput,
	WorktreeEnsureData,
	WorktreeEnsureInput,
	WorktreeListData,
	WorktreeListInput,
	WorktreePruneData,
	WorktreePruneInput,
	WorktreeTeardownData,
	WorktreeTeardownInput,
} from "./schema.ts";

/**
 * `worktree list|teardown|ensure|drop|prune`: fleet administration, five
 * sub-commands. The registry (src/registry.ts) lists them; their code loads
 * only when one runs. Never MCP tools: an agent works in its own worktree,
 * and discarding another line of work is a person's call.
 */
const CLI_ONLY = { cliOnly: "Discarding another line of work is a person's decision." } as const;

export const worktreeListVerb = defineVerb({
	name: "worktree list",
	title: "Worktree: list the fleet",
	summary: "Every worktree of the repository: task id, branch, path, clean, ahead/behind the trunk, Proof state.",
	group: "Daily loop",
	input: WorktreeListInput,
	data: WorktreeListData,
	errors: ["no_repository"] as const,
	annotations: "readOnly",
	exposure: CLI_ONLY,
	cli: { examples: ["discern worktree list", "discern worktree list --json"] },
	load: () => import("./index.ts").then((module) => module.list),
});

export const worktreeTeardownVerb = defineVerb({
	name: "worktree teardown",
	title: "Worktree: destroy this worktree's resources",
	summary: "Inside a worktree discern started: destroy the resources it created for it, newest first.",
	group: "Setup and admin",
	input: WorktreeTeardownInput,
	data: WorktreeTeardownData,
	errors: ["no_repository", "not_in_worktree", "provisioned_resources", "locked", "write_denied"] as const,
	extras: ["plan"],
	lock: "checkout",
	annotations: "destructive",
	exposure: CLI_ONLY,
	cli: { examples: ["discern worktree teardown --dry-run", "discern worktree teardown"] },
	load: () => import("./index.ts").then((module) => module.teardown),
});

export const worktreeEnsureVerb = defineVerb({
	name: "worktree ensure",
	title: "Worktree: re-run the ensure steps here",
	summary:
		"Re-run [worktree].setup.ensure in this task worktree (idempotent steps such as installing dependencies); an agent's session-start hook runs it. In the main checkout it runs nothing without --main-checkout.",
	group: "Setup and admin",
	input: WorktreeEnsureInput,
	data: WorktreeEnsureData,
	errors: ["no_repository", "no_project", "invalid_config", "gate_failed", "locked", "write_denied", "interrupted"] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "checkout",
	annotations: "mutatingIdempotent",
	exposure: { cliOnly: "It runs from an agent's session-start hook, before any tool call." },
	cli: { examples: ["discern worktree ensure", "discern worktree ensure --dry-run", "discern worktree ensure --main-checkout"] },
	load: () => import("./index.ts").then((module) => module.ensure),
});

export const worktreeDropVerb = defineVerb({
	name: "worktree drop",
	title: "Worktree: discard one line of work",
	summary:
		"From the main checkout: remove a worktree and its branch, its tip saved under refs/discern/recovery/ first. Uncommitted or unlanded work needs --force.",
	group: "Setup and admin",
	input: WorktreeDropInput,
	data: WorktreeDropData,
	errors: [
		"no_repository",
		"not_main_checkout",
		"unknown_target",
		"dirty_worktree",
		"active_worktrees",
		"provisioned_resources",
		"locked",
		"write_denied",
		"interrupted",
	] as const,
	extras: ["plan"],
	lock: "repository",
	annotations: "destructive",
	exposure: CLI_ONLY,
	cli: { positionals: ["id"], examples: ["discern worktree drop fix-login-3fa2c1 --dry-run", "discern worktree drop agent/fix-login-3fa2c1 --force"] },
	load: () => import("./index.ts").then((module) => module.drop),
});

export const worktreePruneVerb = defineVerb({
	name: "worktree prune",
	title: "Worktree: remove landed worktrees",
	summary: "From the main checkout: remove the worktrees discern started whose work has landed and that are clean; shows the plan and asks, or takes --yes.",
	group: "Setup and admin",
	input: WorktreePruneInput,
	data: WorktreePruneData,
	errors: ["no_repository", "not_main_checkout", "provisioned_resources", "locked", "write_denied"] as const,
	extras: ["plan"],
	lock: "repository",
	annotations: "destructive",
	exposure: CLI_ONLY,
	cli: { examples: ["discern worktree prune", "discern worktree prune --yes"] },
	load: () => import("./index.ts").then((module) => module.prune),
});
