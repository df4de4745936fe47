import * as v from "valibot";
import { CATEGORIES, Rule } from "../../coach/schema.ts";

export const ImprovementInput = v.strictObject({
	category: v.optional(v.pipe(v.string(), v.minLength(1), v.description(CATEGORIES.join(", ")))),
	min_score: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100), v.description("Fail below this score."))),
});

export const ImprovementData = v.strictObject({
	score: v.number(),
	next: v.pipe(v.nullable(v.strictObject({ rule: v.string(), gain: v.number(), fix: v.string() })), v.description("null when all pass.")),
	categories: v.pipe(v.array(v.strictObject({ name: v.picklist(CATEGORIES), score: v.number(), rules: v.array(Rule) })), v.description("Weakest first.")),
});
export type ImprovementData = v.InferOutput<typeof ImprovementData>;
