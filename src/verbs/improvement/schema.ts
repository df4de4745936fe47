import * as v from "valibot";

/** The coach's categories, in the fixed order that breaks ties. */
export const CATEGORIES = ["gate", "quality", "knowledge", "agents", "isolation"] as const;
export type Category = (typeof CATEGORIES)[number];

/** pass: full credit; partial: half; fail: none; skip: the rule does not apply here (left out of the score). */
export const RULE_STATES = ["pass", "partial", "fail", "skip"] as const;
export type RuleState = (typeof RULE_STATES)[number];

export const ImprovementInput = v.strictObject({
	category: v.optional(v.pipe(v.string(), v.minLength(1), v.description(CATEGORIES.join(", ")))),
	min_score: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100), v.description("Fail below this score."))),
});

export const Rule = v.strictObject({
	id: v.string(),
	weight: v.number(),
	state: v.picklist(RULE_STATES),
	detail: v.string(),
	fix: v.optional(v.string()),
});
export type Rule = v.InferOutput<typeof Rule>;

export const ImprovementData = v.strictObject({
	score: v.number(),
	next: v.pipe(v.nullable(v.strictObject({ rule: v.string(), gain: v.number(), fix: v.string() })), v.description("null when all pass.")),
	categories: v.pipe(v.array(v.strictObject({ name: v.picklist(CATEGORIES), score: v.number(), rules: v.array(Rule) })), v.description("Weakest first.")),
});
export type ImprovementData = v.InferOutput<typeof ImprovementData>;
