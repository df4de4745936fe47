import * as v from "valibot";

export const HelpInput = v.strictObject({
	verb: v.optional(v.pipe(v.string(), v.description("A verb to explain, e.g. `status`."))),
});

export const HelpData = v.strictObject({
	groups: v.array(
		v.strictObject({
			name: v.string(),
			verbs: v.array(v.strictObject({ name: v.string(), summary: v.string(), mcp_tool: v.nullable(v.string()) })),
		}),
	),
	verb: v.optional(
		v.strictObject({
			name: v.string(),
			summary: v.string(),
			usage: v.pipe(v.string(), v.description("The verb's flags and arguments, as text.")),
			mcp_tool: v.nullable(v.string()),
		}),
	),
});
export type HelpData = v.InferOutput<typeof HelpData>;
