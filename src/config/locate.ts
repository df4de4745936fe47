/**
 * Where a dotted key was written in a TOML source. smol-toml gives positions
 * for syntax errors only, so schema problems are placed by a light scan of
 * table headers and `key =` lines. Good enough to point a person at a line;
 * never used to decide anything.
 */
export interface Position {
	line: number;
	col: number;
}

export function indexKeyPositions(source: string): Map<string, Position> {
	const positions = new Map<string, Position>();
	let table: string[] = [];
	let openQuote: string | null = null;
	const lines = source.split(/\r?\n/);
	for (let n = 0; n < lines.length; n++) {
		const text = lines[n] ?? "";
		// Lines inside a multi-line string are content, not keys or headers.
		const wasOpen = openQuote;
		openQuote = multilineStateAfter(text, openQuote);
		if (wasOpen !== null) continue;
		const indent = text.length - text.trimStart().length;
		const trimmed = text.trim();
		if (trimmed.startsWith("#") || trimmed === "") continue;
		const header = /^\[\[?\s*([^\]]+?)\s*\]\]?/.exec(trimmed);
		if (header?.[1]) {
			table = splitDotted(header[1]);
			remember(positions, table, { line: n + 1, col: indent + 1 });
			continue;
		}
		const assignment = /^((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=/.exec(trimmed);
		if (assignment?.[1]) {
			const path = [...table, ...splitDotted(assignment[1])];
			remember(positions, path, { line: n + 1, col: indent + 1 });
			indexInlineTableKeys(positions, path, trimmed.slice(assignment[0].length), n + 1, indent + assignment[0].length + 1);
		}
	}
	return positions;
}

/** The position of the longest prefix of `path` that was written down. */
export function positionOf(positions: Map<string, Position>, path: readonly (string | number)[]): Position | undefined {
	for (let length = path.length; length > 0; length--) {
		const found = positions.get(path.slice(0, length).map(String).join("."));
		if (found) return found;
	}
	return undefined;
}

function remember(positions: Map<string, Position>, path: string[], position: Position): void {
	const key = path.join(".");
	if (!positions.has(key)) positions.set(key, position);
}

/** `test = { run = "x", timeot = 5 }`: record the inner keys on the same line. */
function indexInlineTableKeys(positions: Map<string, Position>, path: string[], rest: string, line: number, offset: number): void {
	const open = rest.indexOf("{");
	if (open < 0) return;
	const pattern = /([A-Za-z0-9_-]+)\s*=/g;
	for (let match = pattern.exec(rest); match; match = pattern.exec(rest)) {
		if (match.index < open || !match[1]) continue;
		remember(positions, [...path, match[1]], { line, col: offset + match.index });
	}
}

/**
 * Which multi-line string delimiter is still open after this line, if any.
 * Scans the line as TOML does: inside a multi-line string only its closing
 * delimiter matters; elsewhere `#` starts a comment and single-line strings
 * hide what they contain.
 */
export function multilineStateAfter(line: string, open: string | null): string | null {
	let state = open;
	let at = 0;
	while (at < line.length) {
		if (state !== null) {
			const end = line.indexOf(state, at);
			if (end < 0) return state;
			state = null;
			at = end + 3;
			continue;
		}
		const char = line[at];
		if (char === "#") return null;
		if (line.startsWith('"""', at) || line.startsWith("'''", at)) {
			state = line.slice(at, at + 3);
			at += 3;
			continue;
		}
		if (char === '"' || char === "'") {
			// A single-line string: skip to its closing quote (basic strings honour backslash escapes).
			let end = at + 1;
			while (end < line.length && line[end] !== char) end += char === '"' && line[end] === "\\" ? 2 : 1;
			at = end + 1;
			continue;
		}
		at++;
	}
	return state;
}

export function splitDotted(text: string): string[] {
	const parts: string[] = [];
	const pattern = /\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/gy;
	for (let match = pattern.exec(text); match && match[0] !== ""; match = pattern.exec(text)) {
		parts.push(match[1] ?? match[2] ?? match[3] ?? "");
	}
	return parts;
}
