import * as v from "valibot";
import { DryRunFlag } from "../../gate/schema.ts";

const Names = v.optional(
	v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.description("Standards to act on, by name; default: every declared one.")),
);

export const StandardsPinInput = v.strictObject({
	names: Names,
	dry_run: DryRunFlag,
});

export const StandardsInput = v.strictObject({
	names: Names,
	pin: v.optional(v.pipe(v.boolean(), v.description("Tighten each improved limit to measured ∓ margin and commit discern.toml alone (clean tree only)."))),
	dry_run: DryRunFlag,
});

export const StandardsData = v.strictObject({
	standards: v.array(
		v.strictObject({
			name: v.string(),
			verdict: v.picklist(["held", "improved", "regressed", "unmeasured"]),
			value: v.nullable(v.number()),
			limit: v.number(),
			proposed: v.optional(v.pipe(v.number(), v.description("The limit a pin would set (measured ∓ margin)."))),
		}),
	),
	pinned: v.optional(v.array(v.strictObject({ name: v.string(), before: v.number(), after: v.number() }))),
	commit: v.optional(v.pipe(v.string(), v.description("The pin's commit."))),
	proof: v.optional(v.pipe(v.nullable(v.string()), v.description("The Proof line carried to the pin's commit; null when none was."))),
	interrupted: v.boolean(),
});
export type StandardsData = v.InferOutput<typeof StandardsData>;
