/**
 * Sentences built around other sentences. Messages often embed a reason
 * that came from elsewhere (a config problem, a valibot issue, a git error)
 * and may already end in a question ("did you mean `timeout`?") or a period;
 * appending "." blindly gives "?." and "..".
 */

/** Text that already ends as a sentence does: ".", "?" or "!", possibly inside a closing quote or bracket. */
const ENDED = /[.?!…]["')\]]?$/;

/** Trailing punctuation that cannot end a sentence and would double up with a period. */
const DANGLING = /[\s,;:]+$/;

/**
 * `text` with exactly one sentence ending: a period is added only when it
 * has none, and a dangling ",", ";" or ":" gives way to it. A question stays
 * a question.
 */
export function endSentence(text: string): string {
	const trimmed = text.replace(DANGLING, "");
	if (trimmed === "") return "";
	return ENDED.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The first letter in upper case: a clause that now starts a sentence. */
export function capitalize(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
