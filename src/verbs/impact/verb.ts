import { defineVerb } from "../../contract/verb.ts";
import { ImpactData, ImpactInput } from "./schema.ts";

/** `impact`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const impactVerb = defineVerb({
	name: "impact",
	title: "Impact: which scopes this branch and tree touch",
	summary: "Which configured scopes the branch and the working tree touch, plus `code` when a non-neutral path changed.",
	mcpDescription:
		"Which configured scopes the branch (since the trunk) and the working tree touch, and whether any non-neutral path changed (`code`). Call it to learn what your change affects; `has` with a scope name or `code` answers just that (`data.membership`). Read-only. Refuses an undeclared scope (invalid_arguments) and a repository without discern.toml (no_project).",
	mcpGuide: { step: "learn", text: "discern_impact says which configured scopes your change touches." },
	mcpResource: { name: "impact", title: "Impact", description: "Which scopes the branch and working tree touch (discern_impact's data)." },
	group: "Quality",
	input: ImpactInput,
	data: ImpactData,
	errors: ["no_repository", "no_project", "invalid_config"] as const,
	annotations: "readOnly",
	exposure: { tool: "discern_impact", project: true },
	cli: { question: "has", examples: ["discern impact", "discern impact --has web", "discern impact --has code && echo code changed"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
