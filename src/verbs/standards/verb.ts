import { defineVerb } from "../../contract/verb.ts";
import { StandardsData, StandardsInput, StandardsPinInput } from "./schema.ts";

const ERRORS = ["no_repository", "no_project", "invalid_config", "unknown_standard", "gate_failed", "locked", "interrupted"] as const;
/** What a pin adds: it needs a clean tree on a branch, and writes and commits discern.toml. */
const PIN_ERRORS = ["dirty_worktree", "detached_head", "awaiting_consent", "pin_failed", "write_denied"] as const;

/**
 * `standards` measures; `standards pin` (a sub-command, so no standard may
 * be named `pin`) tightens and commits. Over MCP both are `discern_standards`,
 * pinning with `pin: true`. The registry (src/registry.ts) lists them.
 */
export const standardsVerb = defineVerb({
	name: "standards",
	title: "Standards: measure them fresh, or pin their gains",
	summary: "Measure the project's standards on the working tree: each reading held, improved or regressed against its limit.",
	mcpDescription:
		"Call it to measure the [standards.*] (coverage…) fresh on the working tree: each held, improved (`proposed`: the limit a pin sets) or regressed (gate_failed, with diagnostics). `pin: true` on a clean committed tree tightens improved limits to measured ∓ margin and commits discern.toml alone; refused while one fails.",
	group: "Quality",
	input: StandardsInput,
	data: StandardsData,
	errors: [...ERRORS, ...PIN_ERRORS] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "checkout",
	annotations: "mutating",
	exposure: { tool: "discern_standards", project: true },
	cli: { rest: "names", positionals: ["names"], examples: ["discern standards", "discern standards coverage", "discern standards --dry-run"] },
	load: () => import("./index.ts").then((module) => module.verb),
});

export const standardsPinVerb = defineVerb({
	name: "standards pin",
	title: "Standards: pin measured gains",
	summary: "On a clean tree, tighten each improved limit to measured ∓ margin and commit discern.toml alone; a Proof carries over.",
	group: "Quality",
	input: StandardsPinInput,
	data: StandardsData,
	errors: [...ERRORS, ...PIN_ERRORS] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "checkout",
	annotations: "mutating",
	exposure: {
		cliOnly: "Over MCP a pin is `discern_standards` with `pin: true`: one tool measures and pins.",
		asTool: { tool: "discern_standards", args: { pin: true } },
	},
	cli: { rest: "names", positionals: ["names"], examples: ["discern standards pin", "discern standards pin coverage", "discern standards pin --dry-run"] },
	load: () => import("./index.ts").then((module) => module.pin),
});
