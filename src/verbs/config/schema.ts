import * as v from "valibot";
import { ConfigIssue } from "../../config/issue.ts";

const Key = v.pipe(v.string(), v.minLength(1), v.description("Dotted key, e.g. `gate.timeout` or `jobs.test`."));

/** `config validate`: the whole file, nothing else. */
export const ConfigValidateInput = v.strictObject({});

/** `config get KEY`: one key's effective value. */
export const ConfigGetInput = v.strictObject({ key: Key });

/** `config set KEY VALUE`: one key written, comments and layout kept. */
export const ConfigSetInput = v.strictObject({
	key: Key,
	value: v.pipe(v.string(), v.description('A TOML value (`900`, `true`, `["a"]`, `{ run = "x" }`); other words are a string.')),
	dry_run: v.optional(v.pipe(v.boolean(), v.description("Show the edit, write nothing."))),
});

/** What every `config` sub-command reports: the file, whether it is valid, and its problems with their lines. */
export const ConfigData = v.strictObject({
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
