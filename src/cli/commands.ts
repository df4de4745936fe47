import { type ArgDef, type ArgsDef, type CommandDef, defineCommand } from "citty";
import type { LooseVerb } from "../contract/verb.ts";
import { LOOSE_VERBS } from "../registry.ts";
import { flagSpecs } from "./flags.ts";
import { GLOBAL_FLAGS } from "./global-flags.ts";

/**
 * The citty command tree, built from the registry. discern parses strictly
 * itself (citty's parser lets unknown flags through); help pages are laid out
 * from this tree by `usage.ts` (citty's own renderer pads lines with spaces
 * and cannot wrap to the terminal).
 */
export const GLOBAL_ARGS: ArgsDef = Object.fromEntries(
	GLOBAL_FLAGS.map((flag): [string, ArgDef] => {
		const alias = flag.alias ? { alias: flag.alias } : {};
		return [flag.name, flag.value ? { type: "string", description: flag.description, valueHint: flag.value, ...alias } : { type: "boolean", description: flag.description, ...alias }];
	}),
);

/** A verb's own arguments and flags (the global ones are added by `verbCommand`). */
export function verbArgs(verb: LooseVerb): ArgsDef {
	const args: ArgsDef = {};
	for (const spec of flagSpecs(verb)) {
		const common = { description: spec.description, ...(spec.alias ? { alias: spec.alias } : {}) };
		if (spec.positional) args[spec.flag] = { type: "positional", description: spec.description, required: spec.required };
		else if (spec.kind === "boolean") args[spec.flag] = { type: "boolean", ...common };
		else if (spec.kind === "enum") args[spec.flag] = { type: "enum", options: [...(spec.options ?? [])], ...common };
		else args[spec.flag] = { type: "string", valueHint: spec.kind === "number" ? "N" : spec.flag.toUpperCase(), ...common };
	}
	return args;
}

export function verbCommand(verb: LooseVerb): CommandDef {
	// A verb's own flag of a global name (doctor's `--verbose`) describes it better.
	return defineCommand({ meta: { name: verb.name.split(" ").at(-1) ?? verb.name, description: verb.summary }, args: { ...GLOBAL_ARGS, ...verbArgs(verb) } });
}

/**
 * The tree: one node per first word; a family's sub-commands (`config get`)
 * are its children, beside the family's own verb when it has one (`setup`).
 */
export function commandTree(verbs: readonly LooseVerb[]): Record<string, CommandDef> {
	const tree: Record<string, CommandDef> = {};
	for (const first of new Set(verbs.map((verb) => verb.name.split(" ")[0] ?? verb.name))) {
		const own = verbs.find((verb) => verb.name === first);
		const leaves = verbs.filter((verb) => verb.name.startsWith(`${first} `));
		const node = own ? verbCommand(own) : defineCommand({ meta: { name: first, description: `${leaves.length} sub-commands` }, args: GLOBAL_ARGS });
		tree[first] = leaves.length === 0 ? node : { ...node, subCommands: Object.fromEntries(leaves.map((leaf) => [leaf.name.slice(first.length + 1), verbCommand(leaf)])) };
	}
	return tree;
}

export const rootCommand = defineCommand({
	meta: { name: "discern", description: "An engineering practice for coding agents: isolated tasks, a real gate, consent to land." },
	args: GLOBAL_ARGS,
	subCommands: () => commandTree(LOOSE_VERBS),
});
