/**
 * Finds a SARIF or JUnit report in a job's output or report file: the whole
 * text, or a document embedded in noise (a runner's log lines before and
 * after it). The scan is bounded: SARIF candidates are only the lines that
 * open a JSON object, their brace matching shares one budget, and a JUnit
 * search resumes after each document it reads.
 */
import type { Diagnostic } from "../../contract/envelope.ts";
import { cleanText, oneLine, quoteName } from "../../text/terminal.ts";
import type { ReportJob } from "./job.ts";
import { junitAt } from "./junit.ts";
import { parseSarif } from "./sarif.ts";

/** Findings beyond this many are counted in `omitted`, not listed. */
export const MAX_REPORT_DIAGNOSTICS = 500;

/** Only this much of a text is scanned (UTF-16 code units, about 20 MB of ASCII). */
export const MAX_REPORT_SCAN = 20 * 1024 * 1024;

export type ReportFormat = "sarif" | "junit";

export interface ReportFindings {
	format: ReportFormat;
	/** Errors first, then warnings, each in report order; at most MAX_REPORT_DIAGNOSTICS. */
	diagnostics: Diagnostic[];
	/** How many findings were left out by the cap. */
	omitted: number;
}

/** Null when the text holds neither a SARIF 2.1.0 log nor a JUnit XML document. */
export function reportDiagnostics(text: string, job: ReportJob): ReportFindings | null {
	const scanned = text.length > MAX_REPORT_SCAN ? text.slice(0, MAX_REPORT_SCAN) : text;
	const sarif = findSarif(scanned, job);
	if (sarif) return capped("sarif", sarif);
	const junit = findJUnit(scanned, job);
	return junit ? capped("junit", junit) : null;
}

/**
 * Errors go first so the cap never hides an error behind warnings; a stable
 * sort keeps the report's order within each severity.
 */
function capped(format: ReportFormat, all: Diagnostic[]): ReportFindings {
	const ordered = [...all.filter((d) => d.severity === "error"), ...all.filter((d) => d.severity !== "error")];
	return {
		format,
		diagnostics: ordered.slice(0, MAX_REPORT_DIAGNOSTICS).map(shown),
		omitted: Math.max(0, ordered.length - MAX_REPORT_DIAGNOSTICS),
	};
}

/**
 * A report is the tool's text, not discern's: its messages and traces lose
 * terminal sequences and control characters, and a file name that holds
 * any is quoted, before they reach a result.
 */
function shown(diagnostic: Diagnostic): Diagnostic {
	const { message, output, file, rule } = diagnostic;
	return {
		...diagnostic,
		message: cleanText(message),
		...(output !== undefined ? { output: cleanText(output) } : {}),
		...(file !== undefined ? { file: quoteName(file) } : {}),
		...(rule !== undefined ? { rule: oneLine(rule) } : {}),
	};
}

function findSarif(text: string, job: ReportJob): Diagnostic[] | null {
	if (/^\s*\{/.test(text)) {
		const whole = parseSarif(text, job);
		if (whole) return whole;
	}
	if (!text.includes('"2.1.0"')) return null; // No SARIF 2.1.0 log anywhere: skip the scan.
	const budget = { left: 4 * text.length };
	const objectLine = /^[ \t]*\{/gm; // A line that opens a JSON object: where an embedded log can start.
	for (let match = objectLine.exec(text); match; match = objectLine.exec(text)) {
		const start = match.index + match[0].length - 1;
		const end = objectEnd(text, start, budget);
		if (end < 0) {
			if (budget.left <= 0) return null;
			continue;
		}
		const candidate = text.slice(start, end);
		const found = candidate.includes('"runs"') ? parseSarif(candidate, job) : null;
		if (found) return found;
		objectLine.lastIndex = end; // Objects nested in this one are not documents of their own.
	}
	return null;
}

/**
 * Index just past the `}` matching the `{` at `start`, honouring JSON strings
 * and escapes; -1 when the text ends first or the shared budget runs out.
 */
function objectEnd(text: string, start: number, budget: { left: number }): number {
	let depth = 0;
	let inString = false;
	for (let at = start; at < text.length; at++) {
		if (--budget.left < 0) return -1;
		const code = text.charCodeAt(at);
		if (inString) {
			if (code === 0x5c)
				at++; // backslash: skip the escaped character
			else if (code === 0x22) inString = false;
		} else if (code === 0x22) inString = true;
		else if (code === 0x7b) depth++;
		else if (code === 0x7d && --depth === 0) return at + 1;
	}
	return -1;
}

/** Each attempt reads to the end of a document at most; a few suffice for real output. */
const MAX_JUNIT_ATTEMPTS = 8;

/**
 * The first JUnit document with failures, else the first one at all (a
 * passing run's report: no diagnostics, but still a report). A `<testsuite`
 * mentioned in a log line before the real document just becomes a root that
 * contains it, so its test cases are still found.
 */
function findJUnit(text: string, job: ReportJob): Diagnostic[] | null {
	let firstFound: Diagnostic[] | null = null;
	const suiteTag = /<testsuites?(?=[\s>/])/g; // Where a JUnit root element can start.
	for (let attempt = 0; attempt < MAX_JUNIT_ATTEMPTS; attempt++) {
		const match = suiteTag.exec(text);
		if (!match) break;
		const found = junitAt(text, match.index, job);
		if (!found) continue;
		if (found.diagnostics.length > 0) return found.diagnostics;
		firstFound ??= found.diagnostics;
		suiteTag.lastIndex = Math.max(found.end, match.index + 1);
	}
	return firstFound;
}
