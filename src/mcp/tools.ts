import * as v from "valibot";
import { ANNOTATIONS, type ToolAnnotations } from "../contract/annotations.ts";
import { type JsonSchema, toJsonSchema2020 } from "../contract/json-schema.ts";
import type { LooseVerb } from "../contract/verb.ts";
import { LOOSE_VERBS } from "../registry.ts";

/** One verb as an MCP tool: its closed argument schema and its advertised shape. */
export interface ToolEntry {
	name: string;
	verb: LooseVerb;
	/** Validates call arguments: the verb's input, plus `path` for project tools. */
	arguments: v.GenericSchema;
	listing: {
		name: string;
		title: string;
		description: string;
		inputSchema: JsonSchema;
		outputSchema: JsonSchema;
		annotations: ToolAnnotations;
	};
}

export const PathArgument = v.pipe(
	v.string(),
	v.regex(/^\//, "must be an absolute path"),
	v.description("Absolute path of the checkout (or a folder in it) to act on. Defaults to the server's working root."),
);

export function toolArguments(verb: LooseVerb): v.GenericSchema {
	if (!("tool" in verb.exposure) || !verb.exposure.project) return verb.input;
	return v.strictObject({ ...verb.input.entries, path: v.optional(PathArgument) });
}

function describeTool(verb: LooseVerb): string {
	const kind = ANNOTATIONS[verb.annotations].readOnlyHint ? "Read-only." : "Changes files or runs the project's commands.";
	return `${verb.summary} ${kind} Returns the discern result envelope (ok, message, hints, error, data).`;
}

let entries: Map<string, ToolEntry> | undefined;

/** Tool entries by name, built once from the registry. */
export function toolEntries(): Map<string, ToolEntry> {
	entries ??= new Map(
		LOOSE_VERBS.filter((verb) => "tool" in verb.exposure).map((verb) => {
			const name = (verb.exposure as { tool: string }).tool;
			const args = toolArguments(verb);
			return [
				name,
				{
					name,
					verb,
					arguments: args,
					listing: {
						name,
						title: verb.title,
						description: describeTool(verb),
						inputSchema: toJsonSchema2020(args),
						outputSchema: toJsonSchema2020(verb.envelope),
						annotations: { ...ANNOTATIONS[verb.annotations] },
					},
				},
			];
		}),
	);
	return entries;
}
