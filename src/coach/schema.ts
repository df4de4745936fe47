import * as v from "valibot";

/* The coach's vocabulary: its categories and one rule's verdict, as `improvement` reports them. */

/** The coach's categories, in the fixed order that breaks ties. */
export const CATEGORIES = ["gate", "quality", "knowledge", "agents", "isolation"] as const;
export type Category = (typeof CATEGORIES)[number];

/** pass: full credit; partial: half; fail: none; skip: the rule does not apply here (left out of the score). */
export const RULE_STATES = ["pass", "partial", "fail", "skip"] as const;
export type RuleState = (typeof RULE_STATES)[number];

export const Rule = v.strictObject({
	id: v.string(),
	weight: v.number(),
	state: v.picklist(RULE_STATES),
	detail: v.string(),
	fix: v.optional(v.string()),
});
export type Rule = v.InferOutput<typeof Rule>;
