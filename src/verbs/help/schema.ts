import * as v from "valibot";

export const HelpInput = v.strictObject({
	verb: v.optional(
		v.pipe(v.string(), v.description("A verb or sub-command to explain, e.g. `status` or `config set`; a family (`config`) lists its sub-commands.")),
	),
});

export const HelpFlag = v.strictObject({
	name: v.pipe(v.string(), v.description("Long name without dashes, e.g. `dry-run`.")),
	alias: v.pipe(v.nullable(v.string()), v.description("One-letter alias without its dash, e.g. `C`.")),
	value: v.pipe(v.nullable(v.string()), v.description("Placeholder for the value it takes (`DIR`, `N`); null for a switch.")),
	description: v.string(),
});
export type HelpFlag = v.InferOutput<typeof HelpFlag>;

export const HelpArgument = v.strictObject({
	name: v.pipe(v.string(), v.description("As written in the usage line, e.g. `TARGET`.")),
	required: v.boolean(),
	description: v.string(),
});
export type HelpArgument = v.InferOutput<typeof HelpArgument>;

export const HelpData = v.strictObject({
	groups: v.array(
		v.strictObject({
			name: v.string(),
			verbs: v.array(v.strictObject({ name: v.string(), summary: v.string(), mcp_tool: v.nullable(v.string()) })),
		}),
	),
	global_flags: v.pipe(v.array(HelpFlag), v.description("The global flags that apply here: all of them for discern, those a verb takes for one verb.")),
	family: v.optional(
		v.pipe(
			v.strictObject({
				name: v.string(),
				sub_commands: v.array(v.strictObject({ name: v.string(), summary: v.string() })),
			}),
			v.description("For a word that groups sub-commands (`config`): each of them."),
		),
	),
	verb: v.optional(
		v.strictObject({
			name: v.string(),
			summary: v.string(),
			usage: v.pipe(v.string(), v.description("The usage line, e.g. `discern docs [TARGET] [flags]`.")),
			arguments: v.array(HelpArgument),
			flags: v.pipe(v.array(HelpFlag), v.description("The verb's own flags.")),
			details: v.optional(v.pipe(v.string(), v.description("More about the verb, as prose."))),
			examples: v.array(v.string()),
			mcp_tool: v.nullable(v.string()),
		}),
	),
});
export type HelpData = v.InferOutput<typeof HelpData>;
