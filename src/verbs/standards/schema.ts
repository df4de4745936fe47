import * as v from "valibot";
import { DryRunFlag } from "../../contract/dry-run.ts";
import { StandardReading } from "../../standards/verdict.ts";

const Names = v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.description("Standards to act on; default: all.")));

export const StandardsPinInput = v.strictObject({
	names: Names,
	dry_run: DryRunFlag,
});

export const StandardsInput = v.strictObject({
	names: Names,
	pin: v.optional(v.pipe(v.boolean(), v.description("Pin: tighten improved limits and commit discern.toml."))),
	dry_run: DryRunFlag,
});

export const StandardsData = v.strictObject({
	standards: v.array(
		v.strictObject({
			...StandardReading.entries,
			// The limit a pin sets (measured ∓ margin), when stricter than `limit`.
			proposed: v.optional(v.number()),
		}),
	),
	// A pin: the standards whose limit went from `limit` to `proposed`, its commit, and the Proof line carried to it (null: none).
	pinned: v.optional(v.array(v.string())),
	commit: v.optional(v.string()),
	proof: v.optional(v.nullable(v.string())),
	interrupted: v.boolean(),
	// A pin: the trunk every verb resolves (src/trunk/resolve.ts). A pin never commits on it, nor on any branch named as the trunk.
	trunk: v.optional(v.nullable(v.string())),
});
export type StandardsData = v.InferOutput<typeof StandardsData>;
