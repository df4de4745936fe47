import { defineVerb } from "../../contract/verb.ts";
import { PrepareData, PrepareInput } from "./schema.ts";

/** `prepare`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const prepareVerb = defineVerb({
	name: "prepare",
	title: "Prepare: formatters, then lint and typecheck",
	summary: "The fast inner loop: fix-stage jobs one at a time, then check-stage jobs in parallel. No build, no tests, no Proof.",
	group: "Daily loop",
	input: PrepareInput,
	data: PrepareData,
	annotations: "mutating",
	exposure: { tool: "discern_prepare", project: true },
	cli: { examples: ["discern prepare", "discern prepare --dry-run"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
