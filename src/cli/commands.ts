import { type ArgDef, type CommandDef, defineCommand, renderUsage } from "citty";
import type { LooseVerb } from "../contract/verb.ts";
import { LOOSE_VERBS } from "../registry.ts";
import { plain } from "../ui/style.ts";
import { flagSpecs } from "./flags.ts";

/**
 * The citty command tree, built from the registry. discern parses strictly
 * itself (citty's parser lets unknown flags through); citty renders usage.
 */
const GLOBAL_ARGS: Record<string, ArgDef> = {
	json: { type: "boolean", description: "Print the result envelope as one JSON document, and nothing else." },
	cwd: { type: "string", alias: "C", description: "Act as if started in DIR.", valueHint: "DIR" },
	verbose: { type: "boolean", description: "Fuller text output (whole job output, every path) and narration on stderr: config file, git calls, job commands." },
	quiet: { type: "boolean", alias: "q", description: "No narration on stderr: no progress, no per-job lines." },
};

export function verbCommand(verb: LooseVerb): CommandDef {
	const args: Record<string, ArgDef> = {};
	for (const spec of flagSpecs(verb)) {
		const common = { description: spec.description, ...(spec.alias ? { alias: spec.alias } : {}) };
		if (spec.positional) args[spec.flag] = { type: "positional", description: spec.description, required: spec.required };
		else if (spec.kind === "boolean") args[spec.flag] = { type: "boolean", ...common };
		else if (spec.kind === "enum") args[spec.flag] = { type: "enum", options: [...(spec.options ?? [])], ...common };
		else args[spec.flag] = { type: "string", valueHint: spec.kind === "number" ? "N" : spec.flag.toUpperCase(), ...common };
	}
	return defineCommand({ meta: { name: verb.name, description: verb.summary }, args: { ...args, ...GLOBAL_ARGS } });
}

export const rootCommand = defineCommand({
	meta: { name: "discern", description: "An engineering practice for coding agents: isolated tasks, a real gate, consent to land." },
	args: GLOBAL_ARGS,
	subCommands: () => Object.fromEntries(LOOSE_VERBS.map((verb) => [verb.name, verbCommand(verb)])),
});

/** One verb's usage text, without color (it may travel inside a JSON result). */
export async function verbUsage(verb: LooseVerb): Promise<string> {
	const usage = await renderUsage(verbCommand(verb), rootCommand);
	const examples = verb.cli.examples?.length ? `\n\nEXAMPLES\n\n${verb.cli.examples.map((line) => `  ${line}`).join("\n")}` : "";
	return plain(usage) + examples;
}
