import type * as v from "valibot";
import { unwrapSchema } from "../contract/schema-walk.ts";
import type { LooseVerb } from "../contract/verb.ts";

/**
 * A verb's command-line flags and positional words, derived from its
 * Valibot input schema: the schema is the single description of what a verb
 * accepts, on every surface. The CLI parses a line by them
 * (`cli/parse-verb-args.ts`) and help shows them (`verb-usage.ts`).
 */
export type FlagKind = "boolean" | "string" | "number" | "enum" | "list";

export interface FlagSpec {
	/** Input key, e.g. `dry_run`. */
	key: string;
	/** Flag spelling, e.g. `dry-run`. */
	flag: string;
	kind: FlagKind;
	options?: readonly string[];
	description: string;
	alias?: string;
	/** Filled from a positional word rather than a `--flag`. */
	positional: boolean;
	required: boolean;
}

type AnySchema = v.GenericSchema & { type: string; wrapped?: AnySchema; pipe?: AnySchema[]; options?: readonly unknown[] };

export function flagSpecs(verb: LooseVerb): FlagSpec[] {
	const positionals = verb.cli.positionals ?? [];
	return Object.entries(verb.input.entries).map(([key, schema]) => {
		const { base, description, required } = inspect(schema as AnySchema);
		const alias = verb.cli.aliases?.[key];
		const kind: FlagKind =
			base.type === "boolean" ? "boolean" : base.type === "number" ? "number" : base.type === "picklist" ? "enum" : base.type === "array" ? "list" : "string";
		return {
			key,
			flag: key.replaceAll("_", "-"),
			kind,
			...(kind === "enum" ? { options: (base.options ?? []).map(String) } : {}),
			description,
			...(alias ? { alias } : {}),
			positional: positionals.includes(key),
			required,
		};
	});
}

function inspect(schema: AnySchema): { base: AnySchema; description: string; required: boolean } {
	let description = "";
	let required = true;
	const base = unwrapSchema(schema, (layer) => {
		if (layer.type === "optional") required = false;
		for (const item of layer.pipe ?? []) {
			if (item.type === "description") description = (item as unknown as { description: string }).description;
		}
	});
	return { base: base as AnySchema, description, required };
}
