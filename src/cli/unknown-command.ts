import type { Result } from "../contract/envelope.ts";
import { type Surface, wordsFor } from "../contract/refer.ts";
import { LOOSE_VERBS } from "../registry.ts";
import type { HelpData } from "../verbs/help/schema.ts";
import { COMING_VERBS, missingSubCommand as missingIn, unknownVerb as unknownIn } from "../verbs/help/unknown.ts";

/**
 * The command tree's answers for words that name no command, outside the
 * pipeline (which hands the help verb its own words): the help verb's
 * answers (`verbs/help/unknown.ts`) over this build's registry.
 */

export { COMING_VERBS };

export function missingSubCommand(family: string, typed: string | undefined, surface: Surface = "cli"): Result<"help", HelpData> {
	return missingIn(family, typed, wordsFor(surface, LOOSE_VERBS));
}

export function unknownVerb(
	name: string,
	groups?: HelpData["groups"],
	surface: Surface = "cli",
	coming: readonly string[] = COMING_VERBS,
): Result<"help", HelpData> {
	return unknownIn(name, wordsFor(surface, LOOSE_VERBS), groups, coming);
}
