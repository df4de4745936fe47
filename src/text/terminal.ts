import { clip } from "./clip.ts";

/**
 * Foreign text made safe to show. Job output, report messages, git's words
 * and file names come from programs and people discern does not control; on
 * a terminal their escape sequences recolour, retitle, clear or move, and in
 * an agent's context they are noise (`\u001b[31m…`). Every place where such
 * text enters a result goes through `cleanText` (prose, many lines) or
 * `quoteName` (one name inside a sentence); the log files keep the raw bytes.
 */

/**
 * One terminal sequence, in the order a terminal parses them (ECMA-48):
 * - string sequences (OSC `ESC ]`, DCS `ESC P`, SOS, PM, APC, and their C1
 *   forms) run to BEL or ST (`ESC \` or U+009C); an unterminated one is cut
 *   at the end of its line, not of the text, so one stray byte cannot hide
 *   the rest of a log;
 * - CSI (`ESC [` or U+009B), parameters, intermediates and a final byte
 *   (colors, cursor moves, clear-screen); a final byte lost to a cut is fine;
 * - any other escape: `ESC`, intermediates, one final byte (`ESC c`, `ESC 7`, `ESC ( B`).
 */
const SEQUENCE =
	/(?:\u001B[\]PX^_]|[\u0090\u0098\u009D\u009E\u009F])[^\n]*?(?:\u0007|\u001B\\|\u009C|(?=\n)|$)|(?:\u001B\[|\u009B)[\u0030-\u003F]*[\u0020-\u002F]*[\u0040-\u007E]?|\u001B[\u0020-\u002F]*[\u0030-\u007E]?/g;

/** A color sequence (SGR): it can change how text looks, never where it goes or what the terminal does. */
const SGR = /^\u001B\[[0-9;]*m$/;

/**
 * Control characters other than tab and newline (C0, DEL, C1), and the
 * bidirectional overrides and isolates that make text display in an order
 * other than the one it has ("Trojan source").
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

export interface CleanOptions {
	/** Keep color sequences (SGR) — for discern's own rendering on a color terminal. */
	keepColor?: boolean;
}

/**
 * Text without terminal sequences or control characters, newlines and tabs
 * kept. A carriage return that rewrites its line (a progress bar: `10%\r20%\r100%`)
 * keeps the line's last non-empty segment — what a person watching would
 * have seen last, without the thousands of intermediate frames that would
 * crowd a bounded excerpt; the log file still holds every frame.
 */
export function cleanText(text: string, options: CleanOptions = {}): string {
	// The common case (plain ASCII output) pays one scan and no allocation.
	if (!/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/.test(text)) return text;
	const stripped = text.replace(SEQUENCE, (sequence) => (options.keepColor && SGR.test(sequence) ? sequence : ""));
	const lines = stripped.replace(/\r+\n/g, "\n").split("\n");
	return lines.map((line) => lastSegment(line).replace(CONTROL, (char) => (options.keepColor && char === "\u001B" ? char : ""))).join("\n");
}

function lastSegment(line: string): string {
	if (!line.includes("\r")) return line;
	const segments = line.split("\r");
	for (let i = segments.length - 1; i >= 0; i--) {
		const segment = segments[i] ?? "";
		if (segment.replace(SGR_ANYWHERE, "").trim() !== "") return segment;
	}
	return "";
}

const SGR_ANYWHERE = /\u001B\[[0-9;]*m/g;

/** Characters that make a name ambiguous or unsafe when shown as is. */
const NEEDS_QUOTING = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069"\\]/;

const ESCAPES: Readonly<Record<string, string>> = {
	"\u0007": "\\a",
	"\b": "\\b",
	"\t": "\\t",
	"\n": "\\n",
	"\v": "\\v",
	"\f": "\\f",
	"\r": "\\r",
	'"': '\\"',
	"\\": "\\\\",
};

/**
 * A file, branch or folder name for a message: as is when it is plain, else
 * quoted the way git quotes paths (`"a\nb"`, `"\x1b[31mred"`), so a name
 * with a newline or an escape sequence reads as exactly one name and
 * changes nothing on the screen; clipped like any echoed value.
 */
export function quoteName(name: string): string {
	return clip(quoteWhole(name));
}

function quoteWhole(name: string): string {
	if (!NEEDS_QUOTING.test(name)) return name;
	let quoted = "";
	for (const char of name) {
		const escaped = ESCAPES[char];
		if (escaped !== undefined) quoted += escaped;
		else if (NEEDS_QUOTING.test(char)) {
			const code = char.codePointAt(0) ?? 0;
			quoted += code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
		} else quoted += char;
	}
	return `"${quoted}"`;
}

/** Foreign text that must stay on one line (a warning, a progress label): cleaned, newlines and tabs as spaces. */
export function oneLine(text: string): string {
	return cleanText(text)
		.replace(/\s*[\n\t]\s*/g, " ")
		.trim();
}
