import { defineVerb } from "../../contract/verb.ts";
import { UninstallData, UninstallInput } from "./schema.ts";

/** `uninstall`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const uninstallVerb = defineVerb({
	name: "uninstall",
	title: "Uninstall: remove what discern generated or wired",
	summary:
		"Remove AGENTS.md, the pointers, discern's MCP entries and hook (other entries kept byte for byte) and its runtime state; keep discern.toml, the sources, the map, notes and refs. Shows the plan and asks, or takes --yes.",
	group: "Setup and admin",
	input: UninstallInput,
	data: UninstallData,
	errors: ["no_repository", "active_worktrees", "provisioned_resources", "write_denied", "locked"] as const,
	extras: ["plan"],
	lock: "repository",
	annotations: "destructive",
	exposure: { cliOnly: "Removing discern from a repository is the owner's decision, made at a terminal." },
	cli: { examples: ["discern uninstall --dry-run", "discern uninstall", "discern uninstall --yes"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
