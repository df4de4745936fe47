import { parse, parseDocument, patch } from "@decimalturn/toml-patch";
import type { KeyPositions } from "../config/positions.ts";
import { isTable } from "../contract/record.ts";
import { firstLineOfError } from "../text/first-line.ts";
import { onlyInserted } from "./inserted.ts";
import { tomlKey } from "./toml-quote.ts";

/**
 * Editing a TOML file a person also owns (discern.toml, later
 * .codex/config.toml): set one dotted key and leave every other byte as it
 * was — comments, blank lines, key order, quoting, alignment, CRLF.
 *
 * The edit is made by @decimalturn/toml-patch (`patch`), which keeps
 * comments and layout and knows where a key belongs (after a table's last
 * key, inside an inline table, after a multi-line array, a new table at the
 * end). Its result is only taken when it changed nothing but the edited
 * value (or only inserted text, for a new key): toml-patch 3.3.0 re-renders
 * a whole line whose key is separated by tabs (`\ttimeout\t=\t600` →
 * `\ttimeout = 7`) and, when it appends to a table, normalises a spaced
 * header (`[ gate ]` → `[gate]`) or the tabs of the previous line. In those
 * cases the smallest fallback takes over: the value is spliced into the
 * span the library's syntax tree gives, or the new line is put after the
 * table's last key. Both are covered by tests/edit/toml.test.ts.
 */
export type TomlEdit =
	/**
	 * `line` is where the key is written (1-based); `before` is null for a new key; `via` says
	 * whether toml-patch made the edit or the fallback did (the tests hold each case to one).
	 */
	{ ok: true; text: string; line: number; before: string | null; after: string; via: "toml-patch" | "fallback" } | { ok: false; reason: string };

interface Loc {
	start: { line: number; column: number };
	end: { line: number; column: number };
}
interface Node {
	type: string;
	loc: Loc;
}
interface KeyNode extends Node {
	value: string[];
}
interface KeyValueNode extends Node {
	key: KeyNode;
	value: Node & { items?: InlineItemNode[] };
}
interface InlineItemNode extends Node {
	item: KeyValueNode | Node;
}
interface BlockNode extends Node {
	key?: { item: KeyNode };
	items?: Node[];
}

/** A key-value as written, with the table path it sits under. */
interface Written {
	/** The table (or array-of-tables entry) it belongs to; `[]` at the root. */
	table: string[];
	/** The full dotted path of the key. */
	path: string[];
	node: KeyValueNode;
	/** Set for keys inside an inline table: the path of that table's own key. */
	inline: boolean;
}

interface Tree {
	written: Written[];
	/** `[table]` headers (not arrays of tables), by dotted path. */
	tables: Map<string, BlockNode>;
	arrays: Set<string>;
}

/**
 * Set `path` to the TOML value written as `valueText` (one value, e.g. `900`,
 * `"x"`, `{ run = "x" }`). `source` has no byte-order mark (the caller keeps it).
 */
export function setKey(source: string, path: readonly string[], valueText: string): TomlEdit {
	if (path.length < 2) return { ok: false, reason: "only keys inside a table can be set (e.g. `gate.timeout`)" };
	let tree: Tree;
	let value: unknown;
	let document: Record<string, unknown>;
	try {
		tree = readTree(source);
		document = parse(source) as Record<string, unknown>;
	} catch (error) {
		return { ok: false, reason: `the file is not valid TOML (${firstLineOfError(error)})` };
	}
	try {
		value = (parse(`v = ${valueText}`) as { v: unknown }).v;
	} catch (error) {
		return { ok: false, reason: `\`${valueText}\` is not one TOML value (${firstLineOfError(error)})` };
	}
	const key = path.join(".");
	const lines = lineStarts(source);
	const existing = tree.written.find((entry) => entry.path.join(".") === key);

	// What stands in the way: a scalar where a table is needed, an array of tables.
	let table: unknown = document;
	for (let length = 1; length < path.length; length++) {
		const prefix = path.slice(0, length);
		const part = prefix.at(-1) ?? "";
		const child = (table as Record<string, unknown>)[part];
		if (tree.arrays.has(prefix.join("."))) return { ok: false, reason: `\`${prefix.join(".")}\` is an array of tables; edit it by hand` };
		if (child !== undefined && !isTable(child)) {
			const owner = tree.written.find((entry) => entry.path.join(".") === prefix.join("."));
			return { ok: false, reason: `\`${prefix.join(".")}\` is written as a value${owner ? ` at line ${owner.node.loc.start.line}` : ""}; edit it by hand` };
		}
		table = child ?? {};
	}
	const parent = path.slice(0, -1);
	if (!existing) {
		// A table built from dotted keys (`jobs.test = …`) cannot take a new `[jobs]` header, and where a new
		// dotted key would go is a matter of taste: leave it to the person.
		const dotted = tree.written.find(
			(entry) => !entry.inline && entry.table.length < parent.length && entry.path.length > parent.length && startsWith(entry.path, parent),
		);
		if (dotted)
			return { ok: false, reason: `\`${parent.join(".")}\` is written with dotted keys (line ${dotted.node.loc.start.line}); add the key there by hand` };
	}

	const updated = structuredClone(document);
	let cursor = updated as Record<string, unknown>;
	for (const part of parent) {
		if (!isTable(cursor[part])) cursor[part] = {};
		cursor = cursor[part] as Record<string, unknown>;
	}
	cursor[path.at(-1) ?? ""] = value;

	const span = existing ? spanOf(lines, existing.node.value.loc) : null;
	const patched = finalNewline(source, libraryPatch(source, updated));
	const fits =
		patched !== null &&
		(span ? onlyInside(source, patched, span) : onlyInserted(source, patched) && placedUnder(tree, patched, path)) &&
		Bun.deepEquals(valueAt(patched, path), value);
	const text = fits
		? patched
		: span
			? `${source.slice(0, span[0])}${valueText}${source.slice(span[1])}`
			: insertLine(source, lines, tree, parent, path.at(-1) ?? "", valueText);
	if (text === null) return { ok: false, reason: `\`${key}\` cannot be added without rewriting other lines; add it by hand` };
	const after = readTree(text).written.find((entry) => entry.path.join(".") === key);
	if (!after) return { ok: false, reason: `\`${key}\` could not be written; edit it by hand` };
	const afterSpan = spanOf(lineStarts(text), after.node.value.loc);
	return {
		ok: true,
		text,
		line: after.node.loc.start.line,
		before: span ? source.slice(span[0], span[1]) : null,
		after: text.slice(afterSpan[0], afterSpan[1]),
		via: fits ? "toml-patch" : "fallback",
	};
}

/**
 * Where each dotted key, table header and inline-table key is written, for
 * pointing a person at a line. Only the first place a path appears counts.
 * A document the parser refuses yields no positions (the caller reports the
 * syntax error with smol-toml's own line).
 */
export function indexKeyPositions(source: string): KeyPositions {
	const positions: KeyPositions = new Map();
	try {
		readTree(source, (path, node) => {
			const key = path.join(".");
			if (!positions.has(key)) positions.set(key, { line: node.loc.start.line, col: node.loc.start.column + 1 });
		});
	} catch {
		// Positions are a courtesy: a document the parser refuses simply has none.
	}
	return positions;
}

/** Walk the library's syntax tree: every key-value with its full path; `visit` hears headers and keys in order. */
function readTree(source: string, visit?: (path: string[], node: Node) => void): Tree {
	const tree: Tree = { written: [], tables: new Map(), arrays: new Set() };
	const arrayCounts = new Map<string, number>();
	const keyValues = (items: readonly Node[], table: string[], prefix: string[], inline: boolean) => {
		for (const item of items) {
			if (item.type !== "KeyValue") continue;
			const kv = item as KeyValueNode;
			const path = [...prefix, ...kv.key.value];
			// Each dotted prefix is written here too (`a.b.c = 1` writes `a` and `a.b`).
			for (let length = prefix.length + 1; length <= path.length; length++) visit?.(path.slice(0, length), kv);
			tree.written.push({ table, path, node: kv, inline });
			if (kv.value.type === "InlineTable") {
				const inner = (kv.value.items ?? []).map((entry) => entry.item);
				keyValues(inner, table, path, true);
			}
		}
	};
	for (const block of parseDocument(source).cst as unknown as BlockNode[]) {
		if (block.type === "Table" || block.type === "TableArray") {
			const path = [...(block.key?.item.value ?? [])];
			const dotted = path.join(".");
			let table = path;
			if (block.type === "TableArray") {
				const index = arrayCounts.get(dotted) ?? 0;
				arrayCounts.set(dotted, index + 1);
				tree.arrays.add(dotted);
				visit?.(path, block);
				table = [...path, String(index)];
			} else if (!tree.tables.has(dotted)) tree.tables.set(dotted, block);
			visit?.(table, block);
			keyValues(block.items ?? [], table, table, false);
		} else keyValues([block], [], [], false);
	}
	return tree;
}

/**
 * A new key is written as `leaf = value` under its own `[parent]` header or
 * inside the inline table it belongs to — not as a dotted key at the root
 * (what toml-patch writes for a table that exists only through `[parent.sub]`)
 * nor as a new inline table of inline tables (`resources = { db = { … } }`).
 */
function placedUnder(before: Tree, text: string, path: readonly string[]): boolean {
	const parent = path.slice(0, -1).join(".");
	const entry = readTree(text).written.find((written) => written.path.join(".") === path.join("."));
	if (!entry) return false;
	if (entry.inline) return before.written.some((written) => written.path.join(".") === parent && written.node.value.type === "InlineTable");
	return entry.table.join(".") === parent && entry.path.length === entry.table.length + 1;
}

function libraryPatch(source: string, updated: unknown): string | null {
	try {
		return patch(source, updated);
	} catch {
		return null;
	}
}

/** A file that ended with a newline (or was empty) still does: toml-patch leaves an empty file's new table unterminated. */
function finalNewline(source: string, text: string | null): string | null {
	if (text === null || text.endsWith("\n") || !(source === "" || source.endsWith("\n"))) return text;
	return `${text}${eolOf(source)}`;
}

/** Nothing changed outside `span` of the source. */
function onlyInside(source: string, text: string, [start, end]: readonly [number, number]): boolean {
	const tail = source.slice(end);
	return text.length >= start + tail.length && text.startsWith(source.slice(0, start)) && text.endsWith(tail);
}

function valueAt(text: string, path: readonly string[]): unknown {
	try {
		return path.reduce<unknown>((table, part) => (isTable(table) ? table[part] : undefined), parse(text));
	} catch {
		return undefined;
	}
}

/**
 * The fallback insertion: `key = value` on its own line after the last key
 * of the `[parent]` table (indented like it), or a new `[parent]` table at
 * the end after one blank line. A parent that exists only as an inline table
 * or an implicit super-table is not guessed at.
 */
function insertLine(source: string, lines: number[], tree: Tree, parent: string[], leaf: string, valueText: string): string | null {
	const eol = eolOf(source);
	const header = tree.tables.get(parent.join("."));
	if (header) {
		const last = tree.written.filter((entry) => !entry.inline && entry.table.join(".") === parent.join(".") && entry.path.length === parent.length + 1).at(-1);
		const anchor = last?.node ?? header;
		const lineEnd = lines[anchor.loc.end.line] ?? source.length;
		const lineText = source.slice(lines[anchor.loc.start.line - 1] ?? 0, lineEnd);
		const indent = last ? (/^[ \t]*/.exec(lineText)?.[0] ?? "") : "";
		const before = source.slice(0, lineEnd);
		const joint = before.endsWith("\n") || before === "" ? "" : eol;
		return `${before}${joint}${indent}${tomlKey(leaf)} = ${valueText}${eol}${source.slice(lineEnd)}`;
	}
	if (parent.some((_, index) => tree.written.some((entry) => entry.path.join(".") === parent.slice(0, index + 1).join(".")))) return null;
	const body = source.replace(/(?:\r?\n|[ \t])*$/, "");
	const gap = body === "" ? "" : `${eol}${eol}`;
	return `${body}${gap}[${parent.map(tomlKey).join(".")}]${eol}${tomlKey(leaf)} = ${valueText}${eol}`;
}

/** Offsets where each line starts (index 0 is line 1). */
function lineStarts(source: string): number[] {
	const starts = [0];
	for (let at = source.indexOf("\n"); at >= 0; at = source.indexOf("\n", at + 1)) starts.push(at + 1);
	return starts;
}

/** The syntax tree's line (1-based) and column (0-based, UTF-16 units) as string offsets. */
function spanOf(lines: readonly number[], loc: Loc): [number, number] {
	return [(lines[loc.start.line - 1] ?? 0) + loc.start.column, (lines[loc.end.line - 1] ?? 0) + loc.end.column];
}

function eolOf(source: string): string {
	return source.includes("\r\n") ? "\r\n" : "\n";
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
	return prefix.every((part, index) => path[index] === part);
}

/**
 * Remove `path` and everything under it: each `[path]` / `[path.sub]` table
 * (its header through its last key; a comment after that stays) and each
 * key-value line written under another table (`path = { … }`, dotted
 * `path.key = …`). Every other byte stays. `blankBefore` blank lines directly
 * before the first removed line go too (`Infinity`: all of them), for a
 * table that was appended after a blank line. The result is checked: every
 * other key keeps its value; else it is refused (edit it by hand).
 */
export function removeKey(source: string, path: readonly string[], blankBefore = 0): { ok: true; text: string } | { ok: false; reason: string } {
	let blocks: BlockNode[];
	let tree: Tree;
	try {
		blocks = parseDocument(source).cst as unknown as BlockNode[];
		tree = readTree(source);
	} catch (error) {
		return { ok: false, reason: `the file is not valid TOML (${firstLineOfError(error)})` };
	}
	const lines = lineStarts(source);
	const lineStart = (line: number) => lines[line - 1] ?? source.length;
	const ranges: [number, number][] = [];
	for (const block of blocks) {
		if (block.type !== "Table" && block.type !== "TableArray") continue;
		const key = [...(block.key?.item.value ?? [])];
		if (!startsWith(key, path)) continue;
		if (block.type === "TableArray") return { ok: false, reason: `\`${key.join(".")}\` is an array of tables; edit it by hand` };
		const last = Math.max(block.loc.start.line, ...(block.items ?? []).filter((item) => item.type === "KeyValue").map((item) => item.loc.end.line));
		ranges.push([lineStart(block.loc.start.line), lineStart(last + 1)]);
	}
	for (const entry of tree.written) {
		if (entry.inline || !startsWith(entry.path, path) || startsWith(entry.table, path)) continue;
		const [start, end] = [lineStart(entry.node.loc.start.line), lineStart(entry.node.loc.end.line + 1)];
		const before = source.slice(start, lineStart(entry.node.loc.start.line) + entry.node.loc.start.column);
		if (before.trim() !== "") return { ok: false, reason: `\`${entry.path.join(".")}\` shares its line with other text; edit it by hand` };
		ranges.push([start, end]);
	}
	if (ranges.length === 0) return { ok: true, text: source };
	ranges.sort((a, b) => a[0] - b[0]);
	const first = ranges[0] as [number, number];
	for (let taken = 0; taken < blankBefore && first[0] > 0; taken++) {
		const previous = source.lastIndexOf("\n", first[0] - 2) + 1;
		if (source.slice(previous, first[0]).trim() !== "") break;
		first[0] = previous;
	}
	let text = source;
	for (const [start, end] of [...ranges].reverse()) text = `${text.slice(0, start)}${text.slice(end)}`;
	const kept = tree.written.filter((entry) => !startsWith(entry.path, path)).map((entry) => entry.path);
	if (!parses(text) || valueAt(text, path) !== undefined || kept.some((key) => !Bun.deepEquals(valueAt(text, key), valueAt(source, key)))) {
		return { ok: false, reason: `\`${path.join(".")}\` cannot be removed without changing other keys; edit it by hand` };
	}
	return { ok: true, text };
}

function parses(text: string): boolean {
	try {
		parse(text);
		return true;
	} catch {
		return false;
	}
}
