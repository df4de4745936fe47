import * as v from "valibot";
import { ConfigIssue } from "../../config/issue.ts";

export const CONFIG_ACTIONS = ["validate", "get", "set"] as const;

export const ConfigInput = v.strictObject({
	action: v.pipe(v.picklist(CONFIG_ACTIONS), v.description("`validate` checks the whole file; `get` reads one key; `set` writes one.")),
	key: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Dotted key, e.g. `gate.timeout` or `jobs.test`."))),
	value: v.optional(v.pipe(v.string(), v.description("For `set`: a TOML value (`900`, `true`, `[\"a\"]`, `{ run = \"x\" }`); other words are a string."))),
	dry_run: v.optional(v.pipe(v.boolean(), v.description("For `set`: show the edit, write nothing."))),
});

export const ConfigData = v.strictObject({
	action: v.picklist(CONFIG_ACTIONS),
	path: v.pipe(v.string(), v.description("The discern.toml that was read.")),
	valid: v.boolean(),
	issues: v.array(ConfigIssue),
	key: v.optional(v.string()),
	value: v.optional(v.pipe(v.unknown(), v.description("The effective value, defaults applied."))),
	edit: v.optional(
		v.strictObject({
			line: v.number(),
			before: v.pipe(v.nullable(v.string()), v.description("The value's text before; null when the key was added.")),
			after: v.string(),
			written: v.boolean(),
		}),
	),
});
export type ConfigData = v.InferOutput<typeof ConfigData>;
