import { defineVerb } from "../../contract/verb.ts";
import { DocsData, DocsInput } from "./schema.ts";

/** `docs`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const docsVerb = defineVerb({
	name: "docs",
	title: "Docs: discern's own manual",
	summary: "Read discern's bundled manual: the index, a page, or search results.",
	mcpDescription:
		'discern\'s own manual, bundled with it: no arguments for the index, `target` for a page (e.g. "loop", "gate", "config", "envelope", "mcp"), `search` for words (within `target` when both are given). Call it when a result, hint or error code needs explaining. Read-only; works outside any repository. An unknown page is refused (unknown_target) with the nearest match.',
	mcpGuide: { step: "troubleshoot", text: 'discern_docs is discern\'s manual (`target` such as "loop" or "gate", or `search`).' },
	mcpResource: {
		name: "docs",
		title: "Manual index",
		description: "discern's manual: every page with its summary.",
		pages: {
			argument: "target",
			title: "Manual page",
			description: "One page of discern's manual as markdown, e.g. discern://docs/config or discern://docs/mcp/cursor.",
			listed: true,
		},
	},
	group: "Knowledge",
	input: DocsInput,
	data: DocsData,
	errors: ["unknown_target"] as const,
	worksAnywhere: true,
	annotations: "readOnly",
	exposure: { tool: "discern_docs", project: false },
	cli: { positionals: ["target"], aliases: { search: "s" }, examples: ["discern docs", "discern docs config", "discern docs --search timeout"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
