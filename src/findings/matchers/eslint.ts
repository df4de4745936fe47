/**
 * ESLint's stylish format (its default): a line naming the file, then one
 * indented line per problem, `  3:5  error  message  rule-id`; and the unix
 * format, `file:3:5: message [Error/rule-id]`. oxlint's default output is a
 * code frame per problem: `  x eslint(no-debugger): message` (`!`/`⚠` for a
 * warning), then `,-[file:3:5]` (`╭─[file:3:5]` on a terminal).
 */
import { type Finding, finding, type Matcher, position, severityOf } from "./types.ts";

const STYLISH_PROBLEM = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*)$/;
/** The rule id ends the line, after two or more spaces (the columns are padded). */
const TRAILING_RULE = /^(.*?\S)\s{2,}(@?[\w-]+(?:\/[\w-]+)*)$/;
const UNIX = /^(\S.*?):(\d+):(\d+): (.*) \[(Error|Warning)(?:\/([^\]]+))?\]$/;

function stylish(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	let file: string | undefined;
	for (const line of lines) {
		if (line.trim() === "") continue;
		if (!/^\s/.test(line)) {
			file = /^[✖✕×]\s|^\d+ problems?/.test(line) ? undefined : line.trim();
			continue;
		}
		const m = file ? STYLISH_PROBLEM.exec(line) : null;
		if (!m) continue;
		const text = (m[4] ?? "").trimEnd();
		const ruled = TRAILING_RULE.exec(text);
		found.push(finding({ file, line: position(m[1]), col: position(m[2]), rule: ruled?.[2], message: ruled?.[1] ?? text, severity: severityOf(m[3] ?? "") }));
	}
	return found;
}

function unix(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (const line of lines) {
		const m = UNIX.exec(line);
		if (m) found.push(finding({ file: m[1], line: position(m[2]), col: position(m[3]), rule: m[6], message: m[4] ?? "", severity: severityOf(m[5] ?? "") }));
	}
	return found;
}

export const eslint: Matcher = { name: "eslint", words: ["eslint", "next"], match: (lines) => [...stylish(lines), ...unix(lines)] };

const OX_HEADER = /^\s+([!x×⚠✖])\s+(?:([\w-]+(?:\/[\w-]+)?)\(([\w/-]+)\)|([\w-]+))?:?\s*(.*)$/;
const OX_FRAME = /^\s*(?:,-|╭─)\[(.+?):(\d+):(\d+)\]\s*$/;

function oxMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (let i = 0; i < lines.length; i++) {
		const header = OX_HEADER.exec(lines[i] ?? "");
		if (!header) continue;
		const frame = OX_FRAME.exec(lines[i + 1] ?? "");
		if (!frame) continue;
		const rule = header[2] && header[3] ? `${header[2]}(${header[3]})` : header[4];
		found.push(
			finding({
				file: frame[1],
				line: position(frame[2]),
				col: position(frame[3]),
				rule,
				message: header[5] ?? "",
				severity: severityOf(header[1] === "!" || header[1] === "⚠" ? "warning" : "error"),
			}),
		);
		i++;
	}
	return found;
}

export const oxlint: Matcher = { name: "oxlint", words: ["oxlint"], match: oxMatch };
