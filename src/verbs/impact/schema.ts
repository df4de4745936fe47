import * as v from "valibot";
import { CODE_MARKER } from "../../scopes/classify.ts";

export { CODE_MARKER };

export const ImpactInput = v.strictObject({
	has: v.optional(v.pipe(v.string(), v.minLength(1), v.description("A scope name, or `code`: answer only whether it is touched (`data.membership`)."))),
});

/** How many changed paths a result lists before it only counts. */
export const MAX_LISTED_PATHS = 200;

export const ImpactData = v.strictObject({
	scopes: v.pipe(v.array(v.string()), v.description("Touched scopes in declaration order, then `code` when a path outside every neutral scope changed.")),
	changed: v.pipe(v.number(), v.description("Number of changed paths (committed on the branch, staged, unstaged, untracked).")),
	paths: v.pipe(v.array(v.string()), v.description(`The changed paths, sorted; at most ${MAX_LISTED_PATHS}.`)),
	truncated: v.boolean(),
	complete: v.pipe(v.boolean(), v.description("false when git could not list every change: classification then fails open (every scope touched, `code` set).")),
	reason: v.optional(v.pipe(v.string(), v.description("Why the change list is incomplete."))),
	per_scope: v.array(
		v.strictObject({
			scope: v.string(),
			paths: v.pipe(v.number(), v.description("Changed paths in this scope.")),
			neutral: v.boolean(),
			gate: v.pipe(v.boolean(), v.description("Whether the scope declares a gate command.")),
		}),
	),
	membership: v.optional(v.pipe(v.boolean(), v.description("With `has`: whether that scope (or `code`) is touched."))),
});
export type ImpactData = v.InferOutput<typeof ImpactData>;
