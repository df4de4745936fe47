import { fail, type Result } from "../../contract/envelope.ts";
import { ref, type SurfaceWords } from "../../contract/refer.ts";
import { subCommandsIn } from "../../contract/verb.ts";
import type { VerbName } from "../../registry.ts";
import { clip } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import { firstTry } from "../../usage/first-tries.ts";
import { globalFlags } from "../../usage/verb-usage.ts";
import type { HelpData } from "./schema.ts";

/**
 * The answers for words that name no command: a first word discern does not
 * know (a typo such as `stauts`), a family typed without its sub-command
 * (`config` alone) or with a mistyped one (`verfy` after `setup`). They
 * answer as the help verb (`verb: "help"`), from the verbs and words they
 * are handed, so the typo on its own (the CLI's command tree) and the typo
 * asked of help (this verb, through the pipeline) say the same thing.
 */

/** Verbs of the design that are not in this build yet; named so help can say so instead of "unknown". */
export const COMING_VERBS: readonly string[] = [];

/**
 * A family word alone (`config`), or with a mistyped sub-command (`config gte`): it needs one of its
 * sub-commands; a near miss names the closest.
 */
export function missingSubCommand(family: string, typed: string | undefined, { verbs, say }: SurfaceWords): Result<"help", HelpData> {
	const subCommands = subCommandsIn(verbs, family);
	const names = subCommandWords(family, subCommands);
	const helpFamily = say`Run ${ref("help", { verb: family })} for what each does.`;
	if (typed === undefined) {
		return fail("help", "invalid_arguments", `\`${family}\` needs a sub-command: ${names}.`, [helpFamily]);
	}
	const suggestion = nearest(
		typed,
		subCommands.map((leaf) => leaf.name.slice(family.length + 1)),
	);
	const named = suggestion ? verbs.find((verb) => verb.name === `${family} ${suggestion}`) : undefined;
	return fail(
		"help",
		"unknown_command",
		`\`${family}\` has no sub-command \`${clip(typed)}\`; it has ${names}.`,
		// A name read from the verbs this build has: a real verb, whatever its type says.
		named ? [say`Did you mean ${ref(named.name as VerbName)}?`, helpFamily] : [helpFamily],
	);
}

/** "`get`, `set` or `validate`": the second words of a family's sub-commands. */
export function subCommandWords(family: string, subCommands: readonly { name: string }[]): string {
	const words = subCommands.map((leaf) => `\`${leaf.name.slice(family.length + 1)}\``);
	return words.length === 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/** The result for a verb discern does not know: a newcomer's first try, the closest real one, or a note that it is still to come. */
export function unknownVerb(
	name: string,
	{ verbs, say }: SurfaceWords,
	groups?: HelpData["groups"],
	coming: readonly string[] = COMING_VERBS,
): Result<"help", HelpData> {
	const everyVerb = say`Run ${ref("help")} for every verb.`;
	// First words: a family (`config`) is what a person types first.
	const known = [...new Set(verbs.map((verb) => verb.name.split(" ")[0] ?? verb.name)), "mcp"];
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
	const named = suggestion ? verbs.find((verb) => verb.name === suggestion) : undefined;
	// A family (`config`) is no command by itself: its help lists the sub-commands that are.
	const family = suggestion && !named && subCommandsIn(verbs, suggestion).length > 0;
	const meant = named
		? say`Did you mean ${ref(named.name as VerbName)}?`
		: family
			? say`Did you mean \`${suggestion}\`? ${ref("help", { verb: suggestion })} lists its sub-commands.`
			: `Did you mean \`discern ${suggestion}\`?`;
	const hints: [string, ...string[]] = suggestion ? [meant, everyVerb] : [everyVerb];
	return fail("help", "unknown_command", `Unknown verb \`${clip(name)}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ""}`, hints, withGroups);
}
