/**
 * Python's tools. pytest: the short summary's `FAILED tests/t.py::test_x -
 * message` (and `ERROR` for a collection or fixture error), located by the
 * failure section's `tests/t.py:12: AssertionError` line in the test's own
 * file; where the summary cut the message to the width or left it out, the
 * section's first `E` line says it. mypy: `a.py:3: error: message  [code]` (`a.py:3:5:` with column
 * numbers). Ruff: `a.py:3:5: F401 [*] message` (concise, and full before
 * 0.12), or a `F401 [*] message` line followed by ` --> a.py:3:5` (full).
 * Black `--check`: `would reformat a.py`, and `error: cannot format a.py:
 * Cannot parse: 3:5: …`.
 */
import { clip } from "../../text/clip.ts";
import { type Finding, finding, type Matcher, position, severityOf } from "./types.ts";

// ---- pytest ----

const SUMMARY = /^(FAILED|ERROR) (\S+?)(?:::(\S+?))?(?: - (.*))?$/;
const SECTION = /^_{3,} (?:ERROR at \w+ of |ERROR collecting )?(.+?) _{3,}$/;
const LOCATION = /^(\S+\.py):(\d+): (.*)$/;
/** A line of the raised error in a failure section: `E       AssertionError: message`. */
const ERROR_LINE = /^E\s+(\S.*)$/;
/** The summary cut its message to the terminal's width (`- AssertionErro...`). */
const CUT = /\.\.\.$/;
/** A failure's message keeps at most this much of the error's first line. */
const MESSAGE_LIMIT = 500;

function pytestMatch(lines: readonly string[]): Finding[] {
	// Where each section's failure was raised, by the section's title (`test_x`, `TestA.test_x`).
	const locations = new Map<string, { file: string; line: number | undefined; kind: string }[]>();
	// The first line of each section's error, whole: the summary cuts it to the width, or leaves it out beside a long test name.
	const errors = new Map<string, string>();
	let section: string | undefined;
	for (const line of lines) {
		const title = SECTION.exec(line);
		if (title?.[1]) {
			section = title[1];
			continue;
		}
		if (/^={3,} /.test(line)) section = undefined;
		const error = section && !errors.has(section) ? ERROR_LINE.exec(line) : null;
		if (section && error?.[1]) errors.set(section, error[1].trimEnd());
		const at = section ? LOCATION.exec(line) : null;
		if (section && at?.[1]) {
			const list = locations.get(section) ?? [];
			list.push({ file: at[1], line: position(at[2]), kind: at[3] ?? "" });
			locations.set(section, list);
		}
	}
	const found: Finding[] = [];
	for (const line of lines) {
		const m = SUMMARY.exec(line);
		if (!m?.[2] || !/\.py$/.test(m[2])) continue;
		const file = m[2];
		const test = m[3];
		const title = test?.replaceAll("::", ".").replace(/\[.*$/, "");
		const candidates = (title ? (locations.get(title) ?? locations.get(test ?? "")) : locations.get(file)) ?? [];
		const inTest = [...candidates].reverse().find((location) => location.file === file) ?? candidates.at(-1);
		const raised = title ? (errors.get(title) ?? errors.get(test ?? "")) : errors.get(file);
		const summary = m[4] !== undefined && (!CUT.test(m[4]) || raised === undefined) ? m[4] : undefined;
		found.push(
			finding({
				file: inTest?.file ?? file,
				line: inTest?.line,
				message: `\`${test ?? file}\`${m[1] === "ERROR" ? " (error)" : ""}: ${summary ?? (raised !== undefined ? clip(raised, MESSAGE_LIMIT) : undefined) ?? inTest?.kind ?? "failed"}`,
				severity: "error",
			}),
		);
	}
	return found;
}

export const pytest: Matcher = { name: "pytest", words: ["pytest", "py.test"], match: pytestMatch };

// ---- mypy ----

const MYPY = /^(\S.*?\.pyi?):(\d+)(?::(\d+))?: (error|warning): (.*?)(?: {2}\[([\w-]+)\])?$/;

function mypyMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (const line of lines) {
		const m = MYPY.exec(line);
		if (m) found.push(finding({ file: m[1], line: position(m[2]), col: position(m[3]), rule: m[6], message: m[5] ?? "", severity: severityOf(m[4] ?? "") }));
	}
	return found;
}

export const mypy: Matcher = { name: "mypy", words: ["mypy", "dmypy"], match: mypyMatch };

// ---- Ruff ----

const RUFF_CONCISE = /^(\S.*?):(\d+):(\d+): ([A-Z]{1,4}\d{1,4}|SyntaxError|invalid-syntax)(?::)? (?:\[\*\] )?(.*)$/;
const RUFF_HEADER = /^([A-Z]{1,4}\d{1,4}|invalid-syntax)(?: \[\*\])? (.*)$/;
const RUFF_ARROW = /^\s*--> (.+?):(\d+):(\d+)\s*$/;

function ruffMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const concise = RUFF_CONCISE.exec(line);
		if (concise) {
			found.push(
				finding({ file: concise[1], line: position(concise[2]), col: position(concise[3]), rule: concise[4], message: concise[5] ?? "", severity: "error" }),
			);
			continue;
		}
		const header = RUFF_HEADER.exec(line);
		const arrow = header ? RUFF_ARROW.exec(lines[i + 1] ?? "") : null;
		if (header && arrow) {
			found.push(finding({ file: arrow[1], line: position(arrow[2]), col: position(arrow[3]), rule: header[1], message: header[2] ?? "", severity: "error" }));
			i++;
		}
	}
	return found;
}

export const ruff: Matcher = { name: "ruff", words: ["ruff"], match: ruffMatch };

// ---- Black ----

const WOULD_REFORMAT = /^would reformat (.+)$/;
const CANNOT_FORMAT = /^error: cannot format (.+?): (.*?)(?:: (\d+):(\d+))?(?:: (.*))?$/;

function blackMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (const line of lines) {
		const would = WOULD_REFORMAT.exec(line);
		if (would) {
			found.push(finding({ file: would[1], message: "not formatted as Black would format it", severity: "error" }));
			continue;
		}
		const cannot = CANNOT_FORMAT.exec(line);
		if (cannot)
			found.push(
				finding({
					file: cannot[1],
					line: position(cannot[3]),
					col: position(cannot[4]),
					message: [cannot[2], cannot[5]].filter(Boolean).join(": "),
					severity: "error",
				}),
			);
	}
	return found;
}

export const black: Matcher = { name: "black", words: ["black"], match: blackMatch };
