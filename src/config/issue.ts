import * as v from "valibot";

/** One problem found in discern.toml, placed at its line when we can. */
export const ConfigIssue = v.strictObject({
	message: v.string(),
	key: v.optional(v.string()),
	line: v.optional(v.number()),
	col: v.optional(v.number()),
	suggestion: v.optional(v.string()),
});
export type ConfigIssue = v.InferOutput<typeof ConfigIssue>;
