import { defineVerb } from "../../contract/verb.ts";
import { PrepareData, PrepareInput } from "./schema.ts";

/** `prepare`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const prepareVerb = defineVerb({
	name: "prepare",
	title: "Prepare: formatters, then lint and typecheck",
	summary: "The fast inner loop: fix-stage jobs one at a time, then check-stage jobs in parallel. No build, no tests, no Proof.",
	mcpDescription:
		"The inner loop's first half: the project's fix-stage jobs (formatters) one at a time, then its check-stage jobs (lint, typecheck) in parallel. Call it after each change, before discern_test; it runs on a dirty tree and never earns a Proof. Formatters may edit files (`data.modified`): review and commit them. A failure is gate_failed with `diagnostics`, each naming the command that reproduces it. Refuses with locked while another gate runs in the checkout, no_project without discern.toml. `dry_run: true` returns the plan and runs nothing.",
	mcpGuide: { step: "iterate", text: "Iterate with discern_prepare (formatters, then lint and typecheck), on a dirty tree." },
	group: "Daily loop",
	input: PrepareInput,
	data: PrepareData,
	errors: ["no_repository", "no_project", "invalid_config", "locked", "write_denied", "gate_failed", "interrupted"] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "checkout",
	annotations: "mutating",
	exposure: { tool: "discern_prepare", project: true },
	cli: { examples: ["discern prepare", "discern prepare --dry-run"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
