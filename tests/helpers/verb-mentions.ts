import type { LooseVerb } from "../../src/contract/verb.ts";
import { toolEntries } from "../../src/mcp/tools.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { parseCommands } from "../../src/text/shell-words.ts";
import { flagSpecs } from "../../src/usage/flag-specs.ts";
import { globalSpellings } from "../../src/usage/global-flags.ts";

/**
 * Finds every place a text sends someone to a verb or a tool, and says which
 * of them name something this build lacks on that surface:
 *
 * - `cli` (and `doc`): each "`discern X …`" names a registry verb (or `mcp`),
 *   with flags that verb takes and sub-commands it knows; each `discern_x`
 *   names a tool, with arguments that tool takes.
 * - `mcp`: as above for tools; a "`discern X`" may only appear as "ask the
 *   owner to run `discern X …` in a terminal", X a verb that is not a tool.
 *
 * Code spans are read in prose (prose may say "discern cannot write"); a
 * `plain` text (a status next action, a doctor fix) is a command itself; in
 * markdown, the lines of fenced blocks are commands too.
 */
export type MentionSurface = "cli" | "mcp" | "doc";

const TOOLS = toolEntries();
const GLOBALS = new Set(globalSpellings());
const VERBS = new Map<string, LooseVerb>(LOOSE_VERBS.map((verb) => [verb.name, verb]));
const OWNER_ASK = /[Aa]sk the owner to run `?$/;
const IN_A_TERMINAL = /^`? in a terminal/;

export function mentionProblems(text: string, surface: MentionSurface, options: { plain?: boolean; markdown?: boolean } = {}): string[] {
	const problems: string[] = [];
	for (const command of commandsIn(text, options)) {
		const own = checkCommand(command.words);
		if (own) problems.push(`\`${command.words.join(" ")}\`: ${own}`);
		if (surface !== "mcp") continue;
		const verb = VERBS.get(command.words[1] ?? "");
		const asked = OWNER_ASK.test(text.slice(0, command.start)) && IN_A_TERMINAL.test(text.slice(command.end));
		if (!asked) problems.push(`\`${command.words.join(" ")}\`: over MCP a command is named only as "ask the owner to run … in a terminal"`);
		else if (verb && "tool" in verb.exposure)
			problems.push(`\`${command.words.join(" ")}\`: over MCP this verb is the tool \`${verb.exposure.tool}\`, not a command for the owner`);
	}
	// The git and mv commands a result prints for pasting: one simple command, nothing substituted, whatever names it embeds.
	if (!options.markdown) for (const problem of unsafeCommands(text)) problems.push(problem);
	for (const match of text.matchAll(/\bdiscern_[a-z_]+\b/g)) {
		const entry = TOOLS.get(match[0]);
		if (!entry) {
			problems.push(`\`${match[0]}\`: no such tool`);
			continue;
		}
		const args = /^` with `(\{[^`]*\})`/.exec(text.slice(match.index + match[0].length));
		if (!args?.[1]) continue;
		const keys = Object.keys(JSON.parse(args[1]) as Record<string, unknown>);
		const known = Object.keys((entry.arguments as unknown as { entries: Record<string, unknown> }).entries);
		for (const key of keys) if (!known.includes(key)) problems.push(`\`${match[0]}\` with \`${key}\`: the tool takes no such argument`);
	}
	return problems;
}

/** Printed `git …` and `mv …` commands that a shell would not read as the one command they show. */
function unsafeCommands(text: string): string[] {
	const problems: string[] = [];
	for (const match of text.matchAll(/`((?:git|mv) [^`]*)`/g)) {
		const command = match[1] ?? "";
		const parsed = parseCommands(command);
		if (parsed.length !== 1 || (parsed[0]?.substitutions.length ?? 0) > 0) problems.push(`\`${command}\`: pasted, it is not the one command it shows`);
	}
	return problems;
}

interface Command {
	words: string[];
	/** Where the command starts and ends in the text. */
	start: number;
	end: number;
}

function commandsIn(text: string, options: { plain?: boolean; markdown?: boolean }): Command[] {
	const commands: Command[] = [];
	const add = (body: string, start: number) => {
		const words = wordsOf(body);
		if (words[0] === "discern" && words.length > 1) commands.push({ words, start, end: start + body.length });
	};
	if (options.plain) {
		// A command runs to the next comma, semicolon, "then", or "in a terminal".
		for (const match of text.matchAll(/\bdiscern [^,;`]+?(?=,|;|`| then | in a terminal|$)/g)) {
			if (text[match.index - 1] !== "`") add(match[0], match.index);
		}
	}
	for (const match of text.matchAll(/`(discern [^`]*)`/g)) add(match[1] ?? "", match.index + 1);
	if (options.markdown) {
		let offset = 0;
		let fenced = false;
		for (const line of text.split("\n")) {
			if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
			else if (fenced) {
				const command = /^\s*(?:\$\s+)?(discern\s.*)$/.exec(line);
				if (command?.[1]) add(command[1].replace(/\s+#.*$/, ""), offset + line.indexOf(command[1]));
			}
			offset += line.length + 1;
		}
	}
	return commands;
}

/** Shell-like words: a quoted value is one word. */
function wordsOf(body: string): string[] {
	return [...body.trim().matchAll(/"[^"]*"|'[^']*'|\S+/g)].map((match) => match[0]);
}

const placeholder = (word: string) => /^[[<{]/.test(word) || /^[A-Z][A-Z_.…]*$/.test(word) || word === "…" || word === "...";

/** Why `discern …` does not work in this build, or null when it does. */
function checkCommand(words: readonly string[]): string | null {
	const [, first = "", ...after] = words;
	if (placeholder(first)) return null;
	// A sub-command is a verb of two words (`config get`); `discern config` alone names its family.
	const two = `${first} ${after[0] ?? ""}`;
	const name = VERBS.has(two) ? two : first;
	const rest = VERBS.has(two) ? after.slice(1) : after;
	if (!VERBS.has(name) && [...VERBS.keys()].some((known) => known.startsWith(`${name} `))) {
		const next = rest[0];
		return next === undefined
			? `\`${name}\` alone is no command: name one of its sub-commands`
			: placeholder(next) || (next.includes("|") && next.split("|").every((word) => VERBS.has(`${name} ${word}`)))
				? null
				: `\`${name}\` has no sub-command \`${next}\``;
	}
	if (name.startsWith("-")) return GLOBALS.has(name.split("=")[0] ?? "") ? null : `\`${name}\` is not a global flag`;
	if (name === "mcp")
		return rest.every((word) => !word.startsWith("-") || ["--cwd", "-C"].includes(word.split("=")[0] ?? "")) ? null : "`discern mcp` takes only --cwd";
	const verb = VERBS.get(name);
	if (!verb) return `\`${name}\` is not a verb of this build`;
	const specs = flagSpecs(verb);
	const positionals = specs.filter((spec) => spec.positional);
	const flags = new Map<string, (typeof specs)[number]>(
		specs.filter((spec) => !spec.positional).flatMap((spec) => [[`--${spec.flag}`, spec] as const, ...(spec.alias ? [[`-${spec.alias}`, spec] as const] : [])]),
	);
	let position = 0;
	for (let index = 0; index < rest.length; index++) {
		const word = rest[index] ?? "";
		if (["|", "&&", "||", ";", ">", "2>&1"].includes(word)) break;
		if (word.startsWith("-")) {
			const flag = word.split("=")[0] ?? "";
			const spec = flags.get(flag);
			if (!spec && !GLOBALS.has(flag)) return `\`${verb.name}\` takes no \`${flag}\``;
			// A flag's value is the next word, not a positional.
			if (spec && spec.kind !== "boolean" && !word.includes("=")) index++;
			if (!spec && (flag === "--cwd" || flag === "-C") && !word.includes("=")) index++;
			continue;
		}
		const spec = positionals[position] ?? (verb.cli.rest ? positionals.at(-1) : undefined);
		if (position < positionals.length) position++;
		if (!spec) return placeholder(word) ? null : `\`${verb.name}\` takes no word \`${word}\` here`;
		// `validate|get|set` offers each of them.
		if (spec.kind === "enum" && !placeholder(word) && !word.split("|").every((option) => (spec.options ?? []).includes(option)))
			return `\`${verb.name}\` has no \`${word}\` (${spec.key}: ${(spec.options ?? []).join(", ")})`;
	}
	return null;
}
