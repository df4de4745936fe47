import { fail, type Result } from "../contract/envelope.ts";
import { ref, type Surface, wordsFor } from "../contract/refer.ts";
import { findVerb, LOOSE_VERBS, subCommandsOf } from "../registry.ts";
import { clip } from "../text/clip.ts";
import { nearest } from "../text/suggest.ts";
import type { HelpData } from "../verbs/help/schema.ts";
import { firstTry } from "./suggest-first-tries.ts";
import { globalFlags } from "./usage.ts";

/**
 * The answers for words that name no command: a verb discern does not know
 * (`discern stauts`), a family without its sub-command (`discern config`) or
 * with a mistyped one (`discern setup verfy`). They read the registry for the
 * names there are, and answer as the help verb would (`verb: "help"`), so
 * `discern stauts` and `discern help stauts` say the same thing.
 */

/** The words for a surface, rendered against the registry itself: the CLI gives these answers outside the pipeline, which builds `ctx.say`. */
function sayFor(surface: Surface) {
	return wordsFor(surface, LOOSE_VERBS).say;
}

/** Verbs of the design that are not in this build yet; named so help can say so instead of "unknown". */
export const COMING_VERBS: readonly string[] = [];

/**
 * A family word alone (`config`), or with a mistyped sub-command (`config gte`): it needs one of its
 * sub-commands; a near miss names the closest.
 */
export function missingSubCommand(family: string, typed: string | undefined, surface: Surface = "cli"): Result<"help", HelpData> {
	const say = sayFor(surface);
	const subCommands = subCommandsOf(family);
	const names = subCommandWords(family, subCommands);
	const helpFamily = say`Run ${ref("help", { verb: family })} for what each does.`;
	if (typed === undefined) {
		return fail("help", "invalid_arguments", `\`${family}\` needs a sub-command: ${names}.`, [helpFamily]);
	}
	const suggestion = nearest(
		typed,
		subCommands.map((leaf) => leaf.name.slice(family.length + 1)),
	);
	const named = suggestion ? findVerb(`${family} ${suggestion}`) : undefined;
	return fail(
		"help",
		"unknown_command",
		`\`${family}\` has no sub-command \`${clip(typed)}\`; it has ${names}.`,
		named ? [say`Did you mean ${ref(named.name)}?`, helpFamily] : [helpFamily],
	);
}

/** "`get`, `set` or `validate`": the second words of a family's sub-commands. */
function subCommandWords(family: string, subCommands: readonly { name: string }[]): string {
	const words = subCommands.map((leaf) => `\`${leaf.name.slice(family.length + 1)}\``);
	return words.length === 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/** The result for a verb discern does not know: a newcomer's first try, the closest real one, or a note that it is still to come. */
export function unknownVerb(
	name: string,
	groups?: HelpData["groups"],
	surface: Surface = "cli",
	coming: readonly string[] = COMING_VERBS,
): Result<"help", HelpData> {
	const say = sayFor(surface);
	const everyVerb = say`Run ${ref("help")} for every verb.`;
	// First words: a family (`config`) is what a person types first.
	const known = [...new Set(LOOSE_VERBS.map((verb) => verb.name.split(" ")[0] ?? verb.name)), "mcp"];
	const withGroups = groups ? { data: { groups, global_flags: globalFlags({ inVerbHelp: false }) } } : {};
	if (coming.includes(name)) {
		return fail(
			"help",
			"unknown_command",
			`\`discern ${name}\` is part of the design but not in this build yet.`,
			[say`Run ${ref("help")} for the verbs this build has.`],
			withGroups,
		);
	}
	const tried = firstTry(name);
	if (tried) {
		const options = tried.commands.map((command) => `\`${command}\``);
		const choice = options.length === 1 ? options[0] : `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`;
		return fail("help", "unknown_command", `Unknown verb \`${clip(name)}\`. Did you mean ${choice}? ${tried.reason}`, [everyVerb], withGroups);
	}
	const suggestion = nearest(name, known);
	const named = suggestion ? findVerb(suggestion) : undefined;
	// A family (`config`) is no command by itself: its help lists the sub-commands that are.
	const family = suggestion && !named && subCommandsOf(suggestion).length > 0;
	const meant = named
		? say`Did you mean ${ref(named.name)}?`
		: family
			? say`Did you mean \`${suggestion}\`? ${ref("help", { verb: suggestion })} lists its sub-commands.`
			: `Did you mean \`discern ${suggestion}\`?`;
	const hints: [string, ...string[]] = suggestion ? [meant, everyVerb] : [everyVerb];
	return fail("help", "unknown_command", `Unknown verb \`${clip(name)}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ""}`, hints, withGroups);
}
