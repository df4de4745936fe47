import {
	applyEdits,
	createScanner,
	type FormattingOptions,
	findNodeAtLocation,
	format,
	getNodeValue,
	type JSONPath,
	modify,
	type ParseError,
	parseTree,
	printParseErrorCode,
} from "jsonc-parser";
import { isRecord } from "../contract/record.ts";
import { onlyInserted } from "./inserted.ts";

/**
 * Editing a JSON-with-comments file a person also owns (`.mcp.json`,
 * `.cursor/mcp.json`, `.vscode/mcp.json`, `.gemini/settings.json`):
 * Microsoft's jsonc-parser computes the smallest text edits for a change
 * (`modify`) and applies them (`applyEdits`), so comments, trailing commas
 * and the rest of the layout stay. New text is indented the way the file
 * already is and ends its lines the way the file does; a byte-order mark is
 * kept.
 *
 * `modify` with formatting options re-formats every line its edit touches,
 * which rewrites a neighbour written on one line (`"other": { "command": "x" }`
 * becomes three lines). So the edit is computed without them (the library
 * still decides where it goes and the commas), the new property is put on a
 * line of its own, and only that text is laid out with the library's
 * `format`. The layout is kept only if every byte of the file that was
 * there before still is; else the new text stays compact on one line.
 */
export type JsoncRead = { ok: true; value: unknown } | { ok: false; reason: string; line: number };

const BOM = "\uFEFF";
const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true } as const;

/** The document's value; comments and trailing commas are fine, anything else is an error with its line. */
export function readJsonc(text: string): JsoncRead {
	const body = withoutBom(text);
	const errors: ParseError[] = [];
	const tree = parseTree(body, errors, PARSE_OPTIONS);
	const first = errors[0];
	if (first) return { ok: false, reason: printParseErrorCode(first.error), line: lineAt(body, first.offset) };
	return { ok: true, value: tree ? getNodeValue(tree) : undefined };
}

/** Set the value at `path` (objects on the way are created), replacing what was there. */
export function setJsonPath(text: string, path: JSONPath, value: unknown): string {
	return edit(text, path, value);
}

/**
 * Merge an object into the object at `path`: each of its keys is set, and
 * keys the file has there that `value` does not name are kept (a person may
 * have added `env` to discern's server entry).
 */
export function mergeJsonPath(text: string, path: JSONPath, value: Record<string, unknown>): string {
	const current = valueAt(text, path);
	if (!isRecord(current)) return edit(text, path, value);
	let result = text;
	for (const [key, item] of Object.entries(value)) {
		if (!Bun.deepEquals(current[key], item)) result = edit(result, [...path, key], item);
	}
	return result;
}

/** Remove the value at `path`; a path that is not there leaves the text as it was. */
export function removeJsonPath(text: string, path: JSONPath): string {
	return valueAt(text, path) === undefined ? text : edit(text, path, undefined);
}

/**
 * The ways the value at `path` can be cut out of the text, each leaving
 * every other byte: the library's removal, and the plain cuts from the end
 * of the previous sibling (its comma and the whitespace with it) or up to
 * the next one. An inserted entry is undone exactly by one of them, which
 * the caller finds by replaying the insertion (uninstall). A path that is not
 * there gives the text alone.
 */
export function removalsOf(text: string, path: JSONPath): string[] {
	const bom = text.startsWith(BOM) ? BOM : "";
	const body = text.slice(bom.length);
	const tree = parseTree(body, [], PARSE_OPTIONS);
	const node = tree && path.length > 0 ? findNodeAtLocation(tree, path) : undefined;
	if (!node) return [text];
	// In an object the unit is the property: its key and its value.
	const unit = node.parent?.type === "property" ? node.parent : node;
	const siblings = unit.parent?.children ?? [];
	const index = siblings.indexOf(unit);
	const found = [removeJsonPath(text, path)];
	const previous = siblings[index - 1];
	const next = siblings[index + 1];
	if (previous) found.push(`${bom}${body.slice(0, previous.offset + previous.length)}${body.slice(unit.offset + unit.length)}`);
	if (next) found.push(`${bom}${body.slice(0, unit.offset)}${body.slice(next.offset)}`);
	// The last one: its comma goes, and a comment after that comma stays on the previous line.
	const comma = previous && !next ? body.indexOf(",", previous.offset + previous.length) : -1;
	if (previous && comma >= 0 && comma < unit.offset)
		found.push(`${bom}${body.slice(0, comma)}${body.slice(comma + 1, unit.offset).trimEnd()}${body.slice(unit.offset + unit.length)}`);
	return [...new Set(found)].filter((candidate) => readJsonc(candidate).ok);
}

/** How many comments the text holds: to prefer, of several removals, one that keeps them. */
export function commentCount(text: string): number {
	const scanner = createScanner(withoutBom(text), false);
	let count = 0;
	// jsonc-parser's SyntaxKind is a const enum (not importable here): 12 and 13 are its comments, 17 the end.
	for (let kind: number = scanner.scan(); kind !== 17; kind = scanner.scan()) {
		if (kind === 12 || kind === 13) count++;
	}
	return count;
}

/** How the file indents (the first indented line decides; two spaces for a file with none) and ends its lines. */
export function detectLayout(text: string): { formatting: FormattingOptions; eol: string } {
	const eol = text.includes("\r\n") ? "\r\n" : "\n";
	const indent = /^(?:\r?\n)*[^\n]*\n([ \t]+)\S/m.exec(withoutBom(text))?.[1] ?? "  ";
	const formatting: FormattingOptions = indent.startsWith("\t")
		? { insertSpaces: false, tabSize: 1, eol }
		: { insertSpaces: true, tabSize: indent.length, eol };
	return { formatting, eol };
}

function edit(text: string, path: JSONPath, value: unknown): string {
	const bom = text.startsWith(BOM) ? BOM : "";
	const body = text.slice(bom.length);
	const { formatting, eol } = detectLayout(body);
	if (body.trim() === "")
		return value === undefined
			? text
			: `${bom}${JSON.stringify(
					path.reduceRight<unknown>((inner, key) => (typeof key === "number" ? [inner] : { [key]: inner }), value),
					null,
					formatting.insertSpaces ? formatting.tabSize : "\t",
				)}${eol}`;
	const [change, ...more] = modify(body, path, value, {});
	if (!change) return text;
	const compact = applyEdits(body, [change, ...more]);
	if (more.length > 0 || change.content === "" || !/[[{]/.test(change.content)) return `${bom}${compact}`;
	// Put a new property on its own line, indented to its depth, then let the library lay out that text alone.
	// An object written on one line stays on one line; an empty `{}` opens up.
	const depth = change.length === 0 ? firstMissing(body, path) : 0;
	if (depth > 0 && !spansLines(body, path.slice(0, depth - 1))) return `${bom}${compact}`;
	const unit = formatting.insertSpaces ? " ".repeat(formatting.tabSize ?? 2) : "\t";
	const opened = depth > 0 ? change.content.replace(/^(,?)/, `$1${eol}${unit.repeat(depth)}`) : change.content;
	const closes = depth > 0 && !change.content.startsWith(",") ? `${eol}${unit.repeat(depth - 1)}` : "";
	const placed = applyEdits(body, [{ ...change, content: `${opened}${closes}` }]);
	const start = change.offset + (opened.length - change.content.length) + (opened.startsWith(",") ? 1 : 0);
	const laidOut = applyEdits(placed, format(placed, { offset: start, length: opened.length - (start - change.offset) }, formatting));
	const kept =
		change.length === 0
			? onlyInserted(body, laidOut)
			: laidOut.startsWith(body.slice(0, change.offset)) && laidOut.endsWith(body.slice(change.offset + change.length));
	return `${bom}${kept ? laidOut : compact}`;
}

/** How many keys of `path` exist in the file, plus one: the depth of the property `modify` inserts. */
function firstMissing(text: string, path: JSONPath): number {
	for (let length = 1; length <= path.length; length++) if (valueAt(text, path.slice(0, length)) === undefined) return length;
	return path.length;
}

function spansLines(text: string, path: JSONPath): boolean {
	const tree = parseTree(text, [], PARSE_OPTIONS);
	const node = tree && (path.length === 0 ? tree : findNodeAtLocation(tree, path));
	return !node || (node.children ?? []).length === 0 || text.slice(node.offset, node.offset + node.length).includes("\n");
}

function valueAt(text: string, path: JSONPath): unknown {
	const read = readJsonc(text);
	if (!read.ok) return undefined;
	return path.reduce<unknown>((node, key) => (isRecord(node) || Array.isArray(node) ? (node as Record<string | number, unknown>)[key] : undefined), read.value);
}

function withoutBom(text: string): string {
	return text.startsWith(BOM) ? text.slice(1) : text;
}

function lineAt(text: string, offset: number): number {
	let line = 1;
	for (let at = text.indexOf("\n"); at >= 0 && at < offset; at = text.indexOf("\n", at + 1)) line++;
	return line;
}
