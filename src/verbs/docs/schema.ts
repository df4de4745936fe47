import * as v from "valibot";

export const DocsInput = v.strictObject({
	target: v.optional(v.pipe(v.string(), v.description("A page, e.g. `config` or `mcp/cursor`. Omit for the index."))),
	search: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Words to search for (within TARGET when given)."))),
});

const PageSummary = v.strictObject({ target: v.string(), title: v.string(), summary: v.string() });

export const DocsData = v.variant("mode", [
	v.strictObject({ mode: v.literal("index"), pages: v.array(PageSummary) }),
	v.strictObject({ mode: v.literal("page"), target: v.string(), title: v.string(), content: v.string() }),
	v.strictObject({
		mode: v.literal("search"),
		query: v.string(),
		matches: v.array(v.strictObject({ target: v.string(), title: v.string(), score: v.number(), snippet: v.string() })),
	}),
]);
export type DocsData = v.InferOutput<typeof DocsData>;
