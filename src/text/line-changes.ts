import { diffArrays } from "diff";
import { clip } from "./clip.ts";

/** The changed lines of a text, `- ` removed and `+ ` added, in order: the first `max`, and how many there are in all. */
export interface LineChanges {
	lines: string[];
	total: number;
}

/** Past this many edits the changed middle is shown removed-then-added whole: more lines than changed, never fewer. */
const MAX_EDITS = 2_000;
const LINE_LIMIT = 160;

/**
 * Which lines changed between two versions of a small text file (an
 * instruction file a person is asked about), matched line by line by
 * jsdiff (Myers' algorithm) while the edit is small. Each line's hidden
 * characters are written out and it is clipped. The texts are the ones the
 * caller read and checked; nothing is read again.
 */
export function lineChanges(before: string, after: string, max: number): LineChanges {
	const a = splitLines(before);
	const b = splitLines(after);
	const parts = diffArrays(a, b, { maxEditLength: MAX_EDITS });
	const changes = parts ? parts.flatMap((part) => (part.added ? part.value.map(plus) : part.removed ? part.value.map(minus) : [])) : wholeMiddle(a, b);
	return { lines: changes.slice(0, max).map((line) => clip(visible(line), LINE_LIMIT)), total: changes.length };
}

/** The lines between the common head and tail, removed then added: for an edit too large to match. */
function wholeMiddle(a: readonly string[], b: readonly string[]): string[] {
	let head = 0;
	while (head < a.length && head < b.length && a[head] === b[head]) head++;
	let tail = 0;
	while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
	return [...a.slice(head, a.length - tail).map(minus), ...b.slice(head, b.length - tail).map(plus)];
}

/**
 * Characters a screen hides but a model reads: controls and escape
 * sequences (a carriage return that redraws the line, an OSC title), the
 * bidirectional overrides, zero-width characters, and Unicode tags
 * (U+E0000–E007F, invisible text an agent still reads as ASCII).
 */
const HIDDEN = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

/**
 * A line as the person must see it to judge what an agent will read:
 * every hidden character written out (`\x0d`, `\u{e0041}`), never
 * dropped, so nothing in the line is invisible to them; a tab is a space.
 */
function visible(line: string): string {
	return line.replace(/\t/g, " ").replace(HIDDEN, (char) => {
		const code = char.codePointAt(0) ?? 0;
		return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
	});
}

function splitLines(text: string): string[] {
	if (text === "") return [];
	const lines = text.split(/\r?\n/);
	if (lines[lines.length - 1] === "") lines.pop();
	return lines;
}

const minus = (line: string) => `- ${line}`;
const plus = (line: string) => `+ ${line}`;
