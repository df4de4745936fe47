import { RefreshData, RefreshInput } from "../../agents/refresh-schema.ts";
import { defineVerb } from "../../contract/verb.ts";

/** `refresh`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const refreshVerb = defineVerb({
	name: "refresh",
	title: "Refresh: regenerate AGENTS.md and the agents' MCP wiring",
	summary:
		"Compile AGENTS.md from discern's briefing and [instructions].sources; write CLAUDE.md/GEMINI.md pointers and merge the discern server into each configured agent's MCP config.",
	mcpDescription:
		"Call it when discern_done fails at the instructions stage or status reports stale wiring: it compiles AGENTS.md (discern's briefing, then [instructions].sources), writes CLAUDE.md/GEMINI.md as @AGENTS.md and merges a discern server into each configured agent's MCP config, touching nothing else. A second call writes nothing. Refuses to overwrite a hand-written AGENTS.md, a generated one changed since discern wrote it, or a symlink (write_denied). `dry_run: true` lists each file's action.",
	group: "Setup and admin",
	input: RefreshInput,
	data: RefreshData,
	errors: ["no_repository", "no_project", "invalid_config", "write_denied", "locked"] as const,
	extras: ["plan"],
	lock: "checkout",
	annotations: "mutatingIdempotent",
	exposure: { tool: "discern_refresh", project: true },
	cli: { examples: ["discern refresh --dry-run", "discern refresh"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
