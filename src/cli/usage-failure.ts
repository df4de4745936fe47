import { type AnyResult, fail } from "../contract/envelope.ts";
import { capitalize, endSentence } from "../text/sentence.ts";

/** A line typed wrong, as the verb's result: `invalid_arguments` (exit 2), the problem as a sentence, and where the flags are listed. */
export function usageFailure(verb: string, message: string): AnyResult {
	const help = verb === "help" ? "`discern help`" : `\`discern help ${verb}\``;
	return fail(verb, "invalid_arguments", endSentence(capitalize(message)), [`Run ${help} for the flags it takes.`]);
}
