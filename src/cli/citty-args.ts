import type { ArgDef, ArgsDef } from "citty";
import type { LooseVerb } from "../contract/verb.ts";
import { flagSpecs } from "../usage/flag-specs.ts";
import { GLOBAL_FLAGS } from "../usage/global-flags.ts";

/**
 * The arguments the command tree (`command-tree.ts`) declares to citty,
 * derived from the flags `usage/` reads off each verb's input schema: names,
 * types and aliases, what citty's parser reads. Nothing here describes a
 * flag: discern parses a verb's words itself, strictly (citty's parser lets
 * unknown flags through), and its help verb lays out help (citty's own
 * renderer pads lines with spaces and cannot wrap to the terminal), so a
 * description or a value hint here would be read by no one.
 */
export const GLOBAL_ARGS: ArgsDef = Object.fromEntries(
	GLOBAL_FLAGS.map((flag): [string, ArgDef] => {
		const alias = flag.alias ? { alias: flag.alias } : {};
		return [flag.name, flag.value ? { type: "string", ...alias } : { type: "boolean", ...alias }];
	}),
);

/** A verb's own arguments and flags (the global ones are the root's). */
export function verbArgs(verb: LooseVerb): ArgsDef {
	const args: ArgsDef = {};
	for (const spec of flagSpecs(verb)) {
		const alias = spec.alias ? { alias: spec.alias } : {};
		if (spec.positional) args[spec.flag] = { type: "positional", required: spec.required };
		else if (spec.kind === "boolean") args[spec.flag] = { type: "boolean", ...alias };
		else if (spec.kind === "enum") args[spec.flag] = { type: "enum", options: [...(spec.options ?? [])], ...alias };
		else args[spec.flag] = { type: "string", ...alias };
	}
	return args;
}

/**
 * A verb's arguments as the command tree hands them to citty: the same
 * names, nothing for citty to enforce. citty's parser checks as it goes and
 * throws its own terse `CLIError` (`EARG`) for a missing required positional
 * or an enum value outside its options, before discern's strict parser
 * (`parseVerbArgs`, run by each command on citty's `rawArgs`) can name the
 * problem in the verb's words and exit 2 with a hint. So nothing is required
 * here, and an enum is a string whose value hint lists its options.
 */
export function lenientArgs(args: ArgsDef): ArgsDef {
	return Object.fromEntries(
		Object.entries(args).map(([name, def]): [string, ArgDef] => {
			if (def.type === "positional") return [name, { ...def, required: false }];
			if (def.type === "enum") {
				const { options = [], ...rest } = def;
				return [name, { ...rest, type: "string", valueHint: options.join("|") }];
			}
			return [name, def];
		}),
	);
}
