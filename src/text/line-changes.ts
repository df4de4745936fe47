import { clip } from "./clip.ts";

/** The changed lines of a text, `- ` removed and `+ ` added, in order: the first `max`, and how many there are in all. */
export interface LineChanges {
	lines: string[];
	total: number;
}

/** Past this many cells the middle is shown as removed-then-added whole, not matched line by line. */
const MATCH_LIMIT = 250_000;
const LINE_LIMIT = 160;

/**
 * Which lines changed between two versions of a small text file (an
 * instruction file a person is asked about): the common head and tail are
 * dropped, and the middle is matched by longest common subsequence while it
 * is small. A larger middle is shown removed-then-added whole: more lines
 * than changed, never fewer. Each line's hidden characters are written out
 * and it is clipped; written by hand because no diff library is among the
 * dependencies, and git's own diff would read the object store again
 * without the hash check the caller's contents already passed.
 */
export function lineChanges(before: string, after: string, max: number): LineChanges {
	const a = splitLines(before);
	const b = splitLines(after);
	let head = 0;
	while (head < a.length && head < b.length && a[head] === b[head]) head++;
	let tail = 0;
	while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
	const removed = a.slice(head, a.length - tail);
	const added = b.slice(head, b.length - tail);
	const changes = removed.length * added.length <= MATCH_LIMIT ? matched(removed, added) : [...removed.map(minus), ...added.map(plus)];
	return { lines: changes.slice(0, max).map((line) => clip(visible(line), LINE_LIMIT)), total: changes.length };
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
 * every hidden character written out (`\x1b`, `\u{e0041}`), never
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

/** Lines only in `a` (removed) and only in `b` (added), interleaved in order, by a longest common subsequence. */
function matched(a: readonly string[], b: readonly string[]): string[] {
	const width = b.length + 1;
	// lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
	const lengths = new Uint32Array((a.length + 1) * width);
	for (let i = a.length - 1; i >= 0; i--)
		for (let j = b.length - 1; j >= 0; j--)
			lengths[i * width + j] =
				a[i] === b[j] ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
	const out: string[] = [];
	let [i, j] = [0, 0];
	while (i < a.length && j < b.length) {
		if (a[i] === b[j]) {
			i++;
			j++;
		} else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) out.push(minus(a[i++] ?? ""));
		else out.push(plus(b[j++] ?? ""));
	}
	while (i < a.length) out.push(minus(a[i++] ?? ""));
	while (j < b.length) out.push(plus(b[j++] ?? ""));
	return out;
}
