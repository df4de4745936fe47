/**
 * What a matcher reads out of a tool's human output: one finding per problem
 * the tool reported, with only what the output says (a file is never guessed).
 */
export interface Finding {
	/** The path as the tool printed it; made relative to the checkout later. */
	file?: string;
	line?: number;
	col?: number;
	rule?: string;
	message: string;
	severity: "error" | "warning";
}

/**
 * One tool family's reading of its default output: a pure function of the
 * output's lines (terminal sequences already stripped). `words` are the
 * command words that name the tool (`tsc`, `eslint`, `cargo`); a matcher
 * whose output shape is too loose to try on any job's output says so with
 * `fallback: false`.
 */
export interface Matcher {
	name: string;
	words: readonly string[];
	fallback?: boolean;
	match(lines: readonly string[]): Finding[];
}

/** A positive line or column number, else undefined (0 means "unknown" to most tools). */
export function position(text: string | undefined): number | undefined {
	if (text === undefined) return undefined;
	const n = Number(text);
	return Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** A finding without the fields that came out empty, so results compare and serialise cleanly. */
export function finding(fields: {
	file?: string | undefined;
	line?: number | undefined;
	col?: number | undefined;
	rule?: string | undefined;
	message: string;
	severity: "error" | "warning";
}): Finding {
	const out: Finding = { message: fields.message.trim(), severity: fields.severity };
	if (fields.file) out.file = fields.file;
	if (fields.line !== undefined) out.line = fields.line;
	if (fields.col !== undefined) out.col = fields.col;
	if (fields.rule) out.rule = fields.rule;
	return out;
}

/** `error`/`fatal error` → error; anything else a tool calls a problem (warning, info, hint) → warning. */
export function severityOf(word: string): "error" | "warning" {
	return ERROR_WORDS.has(word.trim().toLowerCase()) ? "error" : "warning";
}

const ERROR_WORDS = new Set(["error", "fatal error", "fatal", "failure", "x", "×", "✖", "✘"]);

/** The next non-blank line at or after `from`, with its index; undefined past `limit` lines. */
export function nextNonBlank(lines: readonly string[], from: number, limit = 5): { text: string; at: number } | undefined {
	for (let at = from; at < lines.length && at < from + limit; at++) {
		const text = lines[at] ?? "";
		if (text.trim() !== "") return { text, at };
	}
	return undefined;
}
