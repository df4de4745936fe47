import type { LooseVerb } from "../contract/verb.ts";
import { type FlagSpec, flagSpecs } from "./flag-specs.ts";
import { GLOBAL_FLAGS } from "./global-flags.ts";

/**
 * A verb's usage as help shows it, as data: the usage line, the arguments,
 * the verb's own flags and the global flags that apply, all read off the
 * flags its input schema declares (`flag-specs.ts`), the ones the CLI parses
 * by. The help verb returns it (JSON callers get structure, not
 * preformatted text) and its renderer lays it out for the terminal's width.
 */
export interface UsageFlag {
	name: string;
	alias: string | null;
	value: string | null;
	description: string;
}

export interface UsageArgument {
	name: string;
	required: boolean;
	description: string;
}

export interface VerbUsage {
	usage: string;
	arguments: UsageArgument[];
	flags: UsageFlag[];
	global_flags: UsageFlag[];
	examples: string[];
}

export function describeVerb(verb: LooseVerb): VerbUsage {
	const specs = flagSpecs(verb);
	const positionals = specs.filter((spec) => spec.positional);
	const flags = specs.filter((spec) => !spec.positional).map(usageFlag);
	// A list takes every remaining word: `[NAMES…]`.
	const words = positionals.map((spec) => {
		const name = spec.kind === "list" ? `${spec.flag.toUpperCase()}…` : spec.flag.toUpperCase();
		return spec.required ? `<${name}>` : `[${name}]`;
	});
	const global_flags = globalFlags({ inVerbHelp: true, except: flags.map((flag) => flag.name) });
	return {
		usage: ["discern", verb.name, ...words, ...(flags.length + global_flags.length > 0 ? ["[flags]"] : [])].join(" "),
		arguments: positionals.map((spec) => ({ name: spec.flag.toUpperCase(), required: spec.required, description: spec.description })),
		flags,
		global_flags,
		examples: [...(verb.cli.examples ?? [])],
	};
}

/** The global flags as help rows: every one for discern itself, or those listed in a verb's help. */
export function globalFlags(options: { inVerbHelp: boolean; except?: readonly string[]; only?: readonly string[] }): UsageFlag[] {
	return GLOBAL_FLAGS.filter(
		(flag) => (!options.inVerbHelp || flag.inVerbHelp) && !options.except?.includes(flag.name) && (!options.only || options.only.includes(flag.name)),
	).map((flag) => ({ name: flag.name, alias: flag.alias ?? null, value: flag.value ?? null, description: flag.description }));
}

/** A flag as help lists it: `--min-score N`, `--from FROM`, an enum with its options (`fast|full`); a switch (`--dry-run`) takes no value. */
function usageFlag(spec: FlagSpec): UsageFlag {
	const value = spec.kind === "boolean" ? null : spec.kind === "enum" ? (spec.options ?? []).join("|") : spec.kind === "number" ? "N" : spec.flag.toUpperCase();
	return { name: spec.flag, alias: spec.alias ?? null, value, description: spec.description };
}
