/**
 * Biome: each diagnostic opens with `file:3:5 lint/group/rule  FIXABLE  ━━━`
 * (or `file format ━━━` for a file it would format differently), and the
 * next non-blank line carries the severity mark and the message:
 * `  × message` (error), `  ! message` (warning), `  i message` (info).
 */
import { type Finding, finding, type Matcher, nextNonBlank, position } from "./types.ts";

const HEADER = /^(\S.*?)(?::(\d+):(\d+))? ((?:lint|assist|format|organizeImports|parse|check)(?:\/[\w/]+)?)(?:\s+[A-Z]+)*\s+━+\s*$/;
const MARK = /^\s+([×✖!⚠i])\s+(.*)$/;

function match(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (let i = 0; i < lines.length; i++) {
		const header = HEADER.exec(lines[i] ?? "");
		if (!header) continue;
		const next = nextNonBlank(lines, i + 1, 3);
		const mark = next ? MARK.exec(next.text) : null;
		if (!mark || mark[1] === "i") continue;
		found.push(
			finding({
				file: header[1],
				line: position(header[2]),
				col: position(header[3]),
				rule: header[4],
				message: (mark[2] ?? "").replace(/:$/, ""),
				severity: mark[1] === "!" || mark[1] === "⚠" ? "warning" : "error",
			}),
		);
	}
	return found;
}

export const biome: Matcher = { name: "biome", words: ["biome", "rome"], match };
