import * as v from "valibot";
import { ConfigIssue } from "../../config/issue.ts";

export const CONFIG_ACTIONS = ["validate", "get"] as const;

export const ConfigInput = v.strictObject({
	action: v.pipe(v.picklist(CONFIG_ACTIONS), v.description("`validate` checks the whole file; `get` reads one key.")),
	key: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Dotted key for `get`, e.g. `gate.timeout` or `jobs.test`."))),
});

export const ConfigData = v.strictObject({
	action: v.picklist(CONFIG_ACTIONS),
	path: v.pipe(v.string(), v.description("The discern.toml that was read.")),
	valid: v.boolean(),
	issues: v.array(ConfigIssue),
	key: v.optional(v.string()),
	value: v.optional(v.pipe(v.unknown(), v.description("The effective value, defaults applied."))),
});
export type ConfigData = v.InferOutput<typeof ConfigData>;
