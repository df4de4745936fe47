import type { ArgsDef } from "citty";
import type { LooseVerb } from "../contract/verb.ts";
import { verbArgs } from "./commands.ts";
import { flagSpecs } from "./flags.ts";
import { GLOBAL_FLAGS } from "./global-flags.ts";

/**
 * Help as data, read off the citty command tree: the usage line, the
 * arguments, the verb's own flags and the global flags that apply. The help
 * verb returns it (JSON callers get structure, not preformatted text) and
 * its renderer lays it out for the terminal's width.
 */
export interface HelpFlag {
	name: string;
	alias: string | null;
	value: string | null;
	description: string;
}

export interface HelpArgument {
	name: string;
	required: boolean;
	description: string;
}

export interface VerbUsage {
	usage: string;
	arguments: HelpArgument[];
	flags: HelpFlag[];
	global_flags: HelpFlag[];
	examples: string[];
}

export function describeVerb(verb: LooseVerb): VerbUsage {
	const args = verbArgs(verb);
	const { positionals, flags } = split(args);
	// A list takes every remaining word: `[NAMES…]`.
	const lists = new Set(
		flagSpecs(verb)
			.filter((spec) => spec.positional && spec.kind === "list")
			.map((spec) => spec.flag.toUpperCase()),
	);
	const words = positionals.map((argument) => {
		const name = lists.has(argument.name) ? `${argument.name}…` : argument.name;
		return argument.required ? `<${name}>` : `[${name}]`;
	});
	const global_flags = globalFlags({ inVerbHelp: true, except: flags.map((flag) => flag.name) });
	return {
		usage: ["discern", verb.name, ...words, ...(flags.length + global_flags.length > 0 ? ["[flags]"] : [])].join(" "),
		arguments: positionals,
		flags,
		global_flags,
		examples: [...(verb.cli.examples ?? [])],
	};
}

/** The global flags as help rows: every one for discern itself, or those listed in a verb's help. */
export function globalFlags(options: { inVerbHelp: boolean; except?: readonly string[]; only?: readonly string[] }): HelpFlag[] {
	return GLOBAL_FLAGS.filter(
		(flag) => (!options.inVerbHelp || flag.inVerbHelp) && !options.except?.includes(flag.name) && (!options.only || options.only.includes(flag.name)),
	).map((flag) => ({ name: flag.name, alias: flag.alias ?? null, value: flag.value ?? null, description: flag.description }));
}

function split(args: ArgsDef): { positionals: HelpArgument[]; flags: HelpFlag[] } {
	const positionals: HelpArgument[] = [];
	const flags: HelpFlag[] = [];
	for (const [name, def] of Object.entries(args)) {
		const description = def.description ?? "";
		if (def.type === "positional") {
			positionals.push({ name: name.toUpperCase(), required: def.required !== false, description });
			continue;
		}
		const aliases = "alias" in def ? def.alias : undefined;
		const alias = typeof aliases === "string" ? aliases : (aliases?.[0] ?? null);
		const value = def.type === "enum" ? (def.options ?? []).join("|") : def.type === "string" ? (def.valueHint ?? name.toUpperCase()) : null;
		flags.push({ name, alias, value, description });
	}
	return { positionals, flags };
}
