import { parse, stringify } from "smol-toml";
import { clip } from "../text/clip.ts";
import { multilineStateAfter, splitDotted } from "./locate.ts";

/**
 * Set one key in discern.toml without disturbing anything else: comments,
 * blank lines, key order and spacing stay as the person wrote them. Only
 * plain `key = value` lines are edited in place; a key inside an inline
 * table, a multi-line value or an array of tables is refused (edit those by
 * hand) rather than rewritten.
 */
export type EditOutcome =
	| { ok: true; text: string; line: number; before: string | null; after: string }
	| { ok: false; reason: string };

interface Assignment {
	path: string[];
	line: number;
	/** The line its value ends on (later than `line` for multi-line values). */
	endLine: number;
	/** Offsets of the value text on its line. */
	valueStart: number;
	valueEnd: number;
	/** The value does not end on its own line (multi-line array or string). */
	multiline: boolean;
	inlineTable: boolean;
}

interface Scan {
	lines: string[];
	assignments: Assignment[];
	/** Table header path → its line index; array-of-tables paths are marked. */
	headers: Map<string, { line: number; array: boolean }>;
}

/** The TOML text for a value given on a command line, and what the words were. */
export type ValueText =
	| { kind: "string" | "scalar" | "structured"; text: string }
	/** Words written as an inline table that is not valid TOML: never taken as a string. */
	| { kind: "invalid"; reason: string };

/**
 * When the input is one TOML value it is written back out from what was
 * parsed, on one line (so a trailing comment or a second line can never
 * ride along): a table as an inline table, an array as an array. Other
 * words are a string — except words that are plainly an inline table
 * (`{ run = "x" }`) that does not parse: storing those as a string would
 * turn a typo into a job that runs `{`.
 */
export function tomlValue(input: string): ValueText {
	if (!/[\r\n]/.test(input)) {
		try {
			const parsed = parse(`v = ${input}`);
			if (Object.keys(parsed).length === 1 && "v" in parsed) {
				const kind = typeof parsed.v === "string" ? "string" : isTable(parsed.v) || Array.isArray(parsed.v) ? "structured" : "scalar";
				return { kind, text: inlineValue(parsed.v) };
			}
		} catch (error) {
			if (looksLikeInlineTable(input)) {
				return { kind: "invalid", reason: `\`${input.trim()}\` is not a valid TOML inline table (${error instanceof Error ? error.message.split("\n")[0] : String(error)})` };
			}
		}
	}
	return { kind: "string", text: stringifyString(input) };
}

/**
 * `{ key = … }` — and not a shell group (`{ make; }`), the one command that
 * also starts with a brace: a group ends its last command with `;` or `&`.
 */
function looksLikeInlineTable(input: string): boolean {
	const trimmed = input.trim();
	return /^\{[\s\S]*\}$/.test(trimmed) && /^\{\s*(?:\}|[A-Za-z0-9_"'-][^=]*=)/.test(trimmed) && !/[;&]\s*\}$/.test(trimmed);
}

/** One TOML value on one line: tables become inline tables, so the edit stays on its line. */
function inlineValue(value: unknown): string {
	if (Array.isArray(value)) return value.length === 0 ? "[]" : `[ ${value.map(inlineValue).join(", ")} ]`;
	if (isTable(value)) {
		const entries = Object.entries(value).map(([key, item]) => `${quoteKey(key)} = ${inlineValue(item)}`);
		return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
	}
	return stringify({ v: value }).replace(/^v = /, "").trim();
}

/** A parsed TOML table (smol-toml gives them a null prototype; dates are objects too, but not tables). */
function isTable(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A TOML basic string (one line, escapes for quotes, backslashes and control characters). */
export function stringifyString(text: string): string {
	return stringify({ v: text }).replace(/^v = /, "").trim();
}

export function setKey(source: string, path: readonly string[], valueText: string): EditOutcome {
	if (path.length < 2) return { ok: false, reason: "only keys inside a table can be set (e.g. `gate.timeout`)" };
	const scan = scanToml(source);
	const key = path.join(".");
	const found = scan.assignments.find((assignment) => assignment.path.join(".") === key);
	if (found) {
		if (found.multiline) return { ok: false, reason: `\`${clip(key)}\` has a multi-line value at line ${found.line + 1}; edit it by hand` };
		const text = scan.lines[found.line] ?? "";
		const before = text.slice(found.valueStart, found.valueEnd);
		scan.lines[found.line] = `${text.slice(0, found.valueStart)}${valueText}${text.slice(found.valueEnd)}`;
		return { ok: true, text: scan.lines.join("\n"), line: found.line + 1, before, after: valueText };
	}
	for (let length = 1; length < path.length; length++) {
		const prefix = path.slice(0, length).join(".");
		const owner = scan.assignments.find((assignment) => assignment.path.join(".") === prefix);
		if (owner) {
			return { ok: false, reason: `\`${clip(prefix)}\` is written as a value at line ${owner.line + 1}${owner.inlineTable ? " (an inline table)" : ""}; edit it by hand` };
		}
		if (scan.headers.get(prefix)?.array) return { ok: false, reason: `\`${clip(prefix)}\` is an array of tables; edit it by hand` };
	}
	const parent = path.slice(0, -1).join(".");
	// A table built from dotted keys (`jobs.test = …`) cannot take a new `[jobs]` header.
	const dotted = scan.assignments.find((assignment) => assignment.path.length > path.length - 1 && assignment.path.slice(0, path.length - 1).join(".") === parent && !scan.headers.has(parent));
	if (dotted) return { ok: false, reason: `\`${clip(parent)}\` is written with dotted keys (line ${dotted.line + 1}); add the key there by hand` };
	const eol = source.includes("\r\n") ? "\r" : "";
	const leaf = `${quoteKey(path.at(-1) ?? "")} = ${valueText}${eol}`;
	const header = scan.headers.get(parent);
	if (header) {
		const at = lastLineOfTable(scan, header.line);
		scan.lines.splice(at + 1, 0, leaf);
		return { ok: true, text: scan.lines.join("\n"), line: at + 2, before: null, after: valueText };
	}
	// A new table at the end, after one blank line.
	while (scan.lines.length > 0 && scan.lines.at(-1)?.trim() === "") scan.lines.pop();
	if (scan.lines.length > 0 && eol) scan.lines[scan.lines.length - 1] = `${(scan.lines.at(-1) ?? "").replace(/\r$/, "")}\r`;
	const lines = [...scan.lines, ...(scan.lines.length > 0 ? [eol] : []), `[${path.slice(0, -1).map(quoteKey).join(".")}]${eol}`, leaf, ""];
	return { ok: true, text: lines.join("\n"), line: lines.length - 1, before: null, after: valueText };
}

function scanToml(source: string): Scan {
	const lines = source.split("\n");
	const assignments: Assignment[] = [];
	const headers = new Map<string, { line: number; array: boolean }>();
	let table: string[] = [];
	let openQuote: string | null = null;
	let depth = 0;
	for (let n = 0; n < lines.length; n++) {
		const text = lines[n] ?? "";
		const wasOpen = openQuote;
		openQuote = multilineStateAfter(text, openQuote);
		const current = assignments.at(-1);
		if (wasOpen !== null || depth > 0) {
			// Still inside the previous value: it ends here or later.
			if (current) current.endLine = n;
			if (wasOpen === null) depth += bracketBalance(text);
			continue;
		}
		const trimmed = text.trim();
		if (trimmed === "" || trimmed.startsWith("#")) continue;
		const header = /^(\[\[?)\s*([^\]]+?)\s*\]\]?/.exec(trimmed);
		if (header?.[2]) {
			table = splitDotted(header[2]);
			headers.set(table.join("."), { line: n, array: header[1] === "[[" });
			continue;
		}
		const assignment = /^(\s*)((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)(\s*=\s*)/.exec(text);
		if (!assignment?.[2]) continue;
		const valueStart = assignment[0].length;
		const valueEnd = valueStart + valueLength(text.slice(valueStart));
		const balance = bracketBalance(text.slice(valueStart));
		depth = Math.max(0, balance);
		assignments.push({
			path: [...table, ...splitDotted(assignment[2])],
			line: n,
			endLine: n,
			valueStart,
			valueEnd,
			multiline: balance > 0 || openQuote !== null,
			inlineTable: text.slice(valueStart).trimStart().startsWith("{"),
		});
	}
	return { lines, assignments, headers };
}

/**
 * The characters of a line that are TOML syntax: outside single-line
 * strings, up to a comment. Returns where the comment starts (or the end).
 */
function eachCodeChar(text: string, visit: (char: string) => void): number {
	let quote: string | null = null;
	for (let i = 0; i < text.length; i++) {
		const char = text[i] ?? "";
		if (quote) {
			if (char === "\\" && quote === '"') i++;
			else if (char === quote) quote = null;
		} else if (char === '"' || char === "'") quote = char;
		else if (char === "#") return i;
		else visit(char);
	}
	return text.length;
}

/** Length of a value up to a comment or the line's end, trailing spaces excluded. */
function valueLength(rest: string): number {
	return rest.slice(0, eachCodeChar(rest, () => {})).trimEnd().length;
}

/** Open minus closed brackets outside strings and comments: > 0 means the value goes on. */
function bracketBalance(text: string): number {
	let balance = 0;
	eachCodeChar(text, (char) => {
		if (char === "[" || char === "{") balance++;
		else if (char === "]" || char === "}") balance--;
	});
	return balance;
}

/** The last line that belongs to the table whose header is at `headerLine` (its last key, or the header). */
function lastLineOfTable(scan: Scan, headerLine: number): number {
	const nextHeader = [...scan.headers.values()].map((header) => header.line).filter((line) => line > headerLine).sort((a, b) => a - b)[0] ?? scan.lines.length;
	let last = headerLine;
	for (const assignment of scan.assignments) if (assignment.line > headerLine && assignment.line < nextHeader) last = Math.max(last, assignment.endLine);
	return last;
}

function quoteKey(key: string): string {
	return /^[A-Za-z0-9_-]+$/.test(key) ? key : stringifyString(key);
}
