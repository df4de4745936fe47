import type * as v from "valibot";
import type { AnyVerb, VerbName } from "../registry.ts";
import { shellWord } from "../text/shell-quote.ts";
import type { LooseVerb } from "./verb.ts";

/**
 * A sentence that names a verb, written once and rendered for the surface
 * that will show it. A hint or a next action never spells a verb by hand:
 * it holds a typed reference (a verb of the registry and arguments from its
 * own input schema — checked at compile time), so nothing can send a
 * person or an agent to a verb, flag or tool that does not exist there.
 *
 *   ctx.say`If it was flaky, ${ref("done", { rerun: true })} runs it anyway.`
 *
 * renders on the CLI as "… `discern done --rerun` runs it anyway." and over
 * MCP as "… `discern_done` with `{"rerun":true}` runs it anyway."; a verb
 * that is not a tool (`setup`) reads, over MCP, "ask the owner to run
 * `discern setup` in a terminal".
 *
 * The registry is known here by its types only: what a reference renders to
 * comes from the verbs the invocation pipeline hands the core (`ctx.verbs`,
 * `ctx.say`), so that nothing below the surfaces loads the registry.
 */
export interface VerbRef {
	readonly verb: VerbName;
	readonly args: Readonly<Record<string, unknown>>;
}

type InputOf<Name extends VerbName> = v.InferInput<Extract<AnyVerb, { name: Name }>["input"]>;

export function ref<const Name extends VerbName>(verb: Name, args: Partial<InputOf<Name>> = {}): VerbRef {
	return { verb, args: args as Record<string, unknown> };
}

export type Surface = "cli" | "mcp";

/** The verbs of this build, in registry order: what a reference may name. */
export type KnownVerbs = readonly LooseVerb[];

/** A tagged template that renders every `ref(...)` in it; other values are interpolated as text. */
export type Say = (strings: TemplateStringsArray, ...values: readonly (VerbRef | string | number)[]) => string;

/** What a core renders its references with, for one surface: the fields the pipeline adds to its context. */
export interface SurfaceWords {
	verbs: KnownVerbs;
	/** Every reference in a code span: for hints and messages. */
	say: Say;
	/** Every command bare: for a status `next.action`, which is itself the thing to type ("git commit, then discern done"). */
	action: Say;
}

export function wordsFor(surface: Surface, verbs: KnownVerbs): SurfaceWords {
	return { verbs, say: template(surface, verbs, true), action: template(surface, verbs, false) };
}

function template(surface: Surface, verbs: KnownVerbs, code: boolean): Say {
	return (strings, ...values) =>
		strings.reduce((text, part, index) => {
			const value = values[index - 1];
			if (typeof value !== "object") return `${text}${String(value)}${part}`;
			const rendered = render(value, surface, verbs, code);
			// "Run `discern setup`" over MCP must not read "Run ask the owner to run …": the owner's part replaces the verb.
			const asked = /\b([Rr])un $/.exec(text);
			if (asked && rendered.startsWith("ask the owner to run "))
				return `${text.slice(0, asked.index)}${asked[1] === "R" ? "Ask" : "ask"}${rendered.slice("ask".length)}${part}`;
			return `${text}${rendered}${part}`;
		});
}

/** One reference as the surface names it (in code spans unless `code` is false). */
export function render(reference: VerbRef, surface: Surface, verbs: KnownVerbs, code = true): string {
	const verb = verbs.find((candidate) => candidate.name === reference.verb);
	// The type system keeps unknown verbs out; a registry without it is a bug worth seeing, not hiding.
	if (!verb) throw new Error(`a hint names the verb \`${reference.verb}\`, which the registry lacks`);
	const span = (text: string) => (code ? `\`${text}\`` : text);
	if (surface === "cli") return span(cliCommand(verb, reference.args));
	if ("tool" in verb.exposure) {
		const args = Object.entries(reference.args).filter(([, value]) => value !== undefined);
		return args.length === 0 ? span(verb.exposure.tool) : `${span(verb.exposure.tool)} with ${span(JSON.stringify(Object.fromEntries(args)))}`;
	}
	if (verb.exposure.asTool) {
		const args = Object.entries({ ...reference.args, ...verb.exposure.asTool.args }).filter(([, value]) => value !== undefined);
		return `${span(verb.exposure.asTool.tool)} with ${span(JSON.stringify(Object.fromEntries(args)))}`;
	}
	return `ask the owner to run ${span(cliCommand(verb, reference.args))} in a terminal`;
}

/** `discern done --rerun`, `discern config get gate.timeout`: positionals in order, then flags. */
function cliCommand(verb: LooseVerb, args: Readonly<Record<string, unknown>>): string {
	const words = [`discern ${verb.name}`];
	const positionals = verb.cli.positionals ?? [];
	for (const key of positionals) {
		const value = args[key];
		if (value !== undefined) words.push(Array.isArray(value) ? value.map((item) => shellWord(String(item))).join(" ") : shellWord(String(value)));
	}
	for (const [key, value] of Object.entries(args)) {
		if (positionals.includes(key) || value === undefined || value === false) continue;
		const flag = `--${key.replaceAll("_", "-")}`;
		words.push(value === true ? flag : `${flag} ${shellWord(String(value))}`);
	}
	return words.join(" ");
}
