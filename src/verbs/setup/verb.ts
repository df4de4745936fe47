import { defineVerb } from "../../contract/verb.ts";
import { SetupData, SetupInput, SetupVerifyInput } from "./schema.ts";

/** `setup`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const setupVerb = defineVerb({
	name: "setup",
	title: "Setup: adopt discern in a repository",
	summary:
		"Detect the stack, propose jobs, scopes and what a new worktree installs, and (with --confirmed) write what is missing: discern.toml, the map skeleton, and the .gitignore lines the jobs need.",
	group: "Setup and admin",
	input: SetupInput,
	data: SetupData,
	errors: ["no_repository", "write_denied"] as const,
	extras: ["plan"],
	annotations: "mutating",
	exposure: { cliOnly: "Adopting discern is the owner's decision, made once at a terminal; agents get a configured project." },
	cli: { examples: ["discern setup", "discern setup --confirmed", "discern setup --dry-run --agents claude_code,codex"] },
	load: () => import("./index.ts").then((module) => module.setup),
});

/** `setup verify`: its own sub-command, read-only. */
export const setupVerifyVerb = defineVerb({
	name: "setup verify",
	title: "Setup: verify the adoption",
	summary: "Read-only: check discern.toml is valid and every job's program is here; list what setup would add. Exits 1 on a problem.",
	group: "Setup and admin",
	input: SetupVerifyInput,
	data: SetupData,
	errors: ["no_repository", "no_project", "invalid_config", "checks_failed"] as const,
	annotations: "readOnly",
	exposure: { cliOnly: "Adopting discern is the owner's decision, made once at a terminal; agents get a configured project." },
	cli: { examples: ["discern setup verify", "discern setup verify --json"] },
	load: () => import("./index.ts").then((module) => module.verify),
});
