import { defineVerb } from "../../contract/verb.ts";
import { DocsData, DocsInput } from "./schema.ts";

/** `docs`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const docsVerb = defineVerb({
	name: "docs",
	title: "Docs: discern's own manual",
	summary: "Read discern's bundled manual: the index, a page, or search results.",
	group: "Knowledge",
	input: DocsInput,
	data: DocsData,
	annotations: "readOnly",
	exposure: { tool: "discern_docs", project: false },
	cli: { positionals: ["target"], aliases: { search: "s" }, examples: ["discern docs", "discern docs config", "discern docs --search timeout"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
