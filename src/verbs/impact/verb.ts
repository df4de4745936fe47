import { defineVerb } from "../../contract/verb.ts";
import { ImpactData, ImpactInput } from "./schema.ts";

/** `impact`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const impactVerb = defineVerb({
	name: "impact",
	title: "Impact: which scopes this branch and tree touch",
	summary: "Which configured scopes the branch and the working tree touch, plus `code` when a non-neutral path changed.",
	group: "Quality",
	input: ImpactInput,
	data: ImpactData,
	annotations: "readOnly",
	exposure: { tool: "discern_impact", project: true },
	cli: { examples: ["discern impact", "discern impact --has web", "discern impact --has code && echo code changed"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
