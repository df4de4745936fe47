/**
 * The first line worth quoting from a text that may run to many lines (a
 * tool's stderr, a parser's error, a test report's message).
 */

/** The first line that holds more than white space, trimmed; undefined when there is none. */
export function firstNonBlankLine(text: string): string | undefined {
	// Line by line, so a long text is never split whole to read its head.
	for (let start = 0; start < text.length; ) {
		const newline = text.indexOf("\n", start);
		const end = newline < 0 ? text.length : newline;
		const line = text.slice(start, end).trim();
		if (line !== "") return line;
		start = end + 1;
	}
	return undefined;
}

/**
 * A tool's first line of complaint (git's stderr, a parser's error) to quote
 * inside a sentence of discern's own: the first non-blank line without its
 * closing period, since the sentence has its own; "" when there is none.
 */
export function firstLine(text: string): string {
	return (firstNonBlankLine(text) ?? "").replace(/[.\s]+$/, "");
}

/** The first line of what was thrown: a parser's message runs on with the offending source and a caret. */
export function firstLineOfError(error: unknown): string {
	return firstNonBlankLine(error instanceof Error ? error.message : String(error)) ?? "";
}
