import type { Result } from "../contract/envelope.ts";
import { wordsFor } from "../contract/refer.ts";
import { LOOSE_VERBS } from "../registry.ts";
import type { HelpData } from "../verbs/help/schema.ts";
import { missingSubCommand, unknownVerb } from "../verbs/help/unknown.ts";

/**
 * The command tree's answers for words that name no command: the help
 * verb's own (`verbs/help/unknown.ts`), in the CLI's words over this build's
 * registry. The tree answers outside the pipeline, which would hand the help
 * verb these words itself, so a typo (`stauts`) typed alone and asked of
 * help say the same thing.
 */

/** A first word that is no verb, family or `mcp` (a typo such as `stauts`). */
export function answerUnknownVerb(word: string): Result<"help", HelpData> {
	return unknownVerb(word, wordsFor("cli", LOOSE_VERBS));
}

/** A family typed alone (`config`) or with a sub-command it does not have (`verfy` after `setup`). */
export function answerMissingSubCommand(family: string, typed: string | undefined): Result<"help", HelpData> {
	return missingSubCommand(family, typed, wordsFor("cli", LOOSE_VERBS));
}
