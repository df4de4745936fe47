import { stat } from "node:fs/promises";
import { dirname } from "node:path";
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
	v.description("Absolute path in the checkout to act on (a file means its folder). Default: the working root."),
);

/**
 * A `path` may name a file in the checkout (an agent often holds the path of
 * the file it edits): it stands for the folder that holds it. Anything else
 * goes on unchanged, and the verb says what is wrong with it (missing, a
 * loop of links, a name that is not UTF-8).
 */
export async function folderOf(path: string): Promise<string> {
	const found = await stat(path).catch(() => null);
	return found?.isFile() ? dirname(path) : path;
}

export function toolArguments(verb: LooseVerb): v.GenericSchema {
	if (!("tool" in verb.exposure) || !verb.exposure.project) return verb.input;
	return v.strictObject({ ...verb.input.entries, path: v.optional(PathArgument) });
}

/**
 * The registry's words for agents (when to call, what it refuses, what to
 * relay); a verb without them falls back to its summary and what its
 * annotations say. The envelope itself is explained once, in the instructions.
 */
function describeTool(verb: LooseVerb): string {
	if (verb.mcpDescription) return verb.mcpDescription;
	const kind = ANNOTATIONS[verb.annotations].readOnlyHint ? "Read-only." : "Changes files or runs the project's commands.";
	return `${verb.summary} ${kind}`;
}

let entries: Map<string, ToolEntry> | undefined;

/** An input schema with no required key says nothing by listing none: every tool's listing is read before a first call. */
function withoutEmptyRequired(schema: JsonSchema): JsonSchema {
	const { required, ...rest } = schema as JsonSchema & { required?: unknown[] };
	return Array.isArray(required) && required.length === 0 ? (rest as JsonSchema) : schema;
}

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
						inputSchema: withoutEmptyRequired(toJsonSchema2020(args)),
						outputSchema: toJsonSchema2020(verb.envelope),
						annotations: { ...ANNOTATIONS[verb.annotations] },
					},
				},
			];
		}),
	);
	return entries;
}
