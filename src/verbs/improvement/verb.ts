import { defineVerb } from "../../contract/verb.ts";
import { ImprovementData, ImprovementInput } from "./schema.ts";

/** `improvement`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const improvementVerb = defineVerb({
	name: "improvement",
	title: "Improvement: practice score and next fix",
	summary: "The practice coach: a score over weighted rules and the single most valuable next improvement.",
	mcpDescription:
		"Scores the project's setup for agent work (0-100, weighted rules by category) and names the most valuable fix (`data.next`). Call it when asked what to improve. Read-only. Below `min_score`: below_min_score, data still given. Relay fixes; editing the config is the owner's call.",
	group: "Quality",
	input: ImprovementInput,
	data: ImprovementData,
	errors: ["no_repository", "no_project", "invalid_config", "below_min_score", "unknown_category"] as const,
	annotations: "readOnly",
	exposure: { tool: "discern_improvement", project: true },
	cli: { examples: ["discern improvement", "discern improvement --category gate", "discern improvement --min-score 80"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
