/**
 * Findings from a tool's default (human) output: a table of matchers, one
 * module per tool family, chosen by the words of the job's command (`tsc`,
 * `eslint`, `cargo`, `bun test`); when none is named, or the named ones find
 * nothing (a `npm run check` whose script runs several tools), every
 * matcher is tried and their findings merged, the more specific matcher
 * winning where two read the same line. Output is cleaned of terminal
 * sequences first; paths are made relative to the checkout when inside it.
 */
import type { Diagnostic } from "../../contract/envelope.ts";
import { cleanText, oneLine, quoteName } from "../../text/terminal.ts";
import { type ReportJob, reportPath } from "../reports/job.ts";
import { biome } from "./biome.ts";
import { eslint, oxlint } from "./eslint.ts";
import { gcc } from "./gcc.ts";
import { go, golangciLint } from "./go.ts";
import { bunTest, jest, vitest } from "./js-tests.ts";
import { prettier } from "./prettier.ts";
import { black, mypy, pytest, ruff } from "./python.ts";
import { rust } from "./rust.ts";
import { rustfmt } from "./rustfmt.ts";
import type { Finding, Matcher } from "./types.ts";
import { typescript } from "./typescript.ts";

export type { Finding, Matcher } from "./types.ts";

/** Most specific first: where two matchers read the same place, the earlier one's finding is kept. */
export const MATCHERS: readonly Matcher[] = [
	typescript,
	eslint,
	oxlint,
	biome,
	prettier,
	vitest,
	jest,
	bunTest,
	pytest,
	ruff,
	mypy,
	black,
	rust,
	rustfmt,
	golangciLint,
	go,
	gcc,
];

/** Findings beyond this many per job are counted, not listed. */
export const MAX_FINDINGS = 200;

/** Only this much of an output is read (UTF-16 code units). */
const MAX_SCAN = 4 * 1024 * 1024;
/** Lines longer than this are no tool's finding line (minified bundles, base64): skipped, which keeps every regex linear. */
const MAX_LINE = 4_000;

/**
 * The command's words as tool names: each word's last path segment
 * (`node_modules/.bin/tsc` → `tsc`), plus adjacent pairs (`bun test`, `go vet`).
 */
export function commandWords(command: string): Set<string> {
	const words = command
		.split(/[\s;&|()'"`=]+/)
		.filter(Boolean)
		.map((word) => word.slice(word.lastIndexOf("/") + 1).replace(/\.(?:cmd|exe|js|mjs|cjs)$/, ""));
	const out = new Set(words);
	for (let i = 0; i + 1 < words.length; i++) out.add(`${words[i]} ${words[i + 1]}`);
	return out;
}

/** The matchers the command names; empty when it names none. */
export function matchersFor(command: string): Matcher[] {
	const words = commandWords(command);
	return MATCHERS.filter((matcher) => matcher.words.some((word) => words.has(word)));
}

export interface OutputFindings {
	/** Errors first, then warnings, each in output order; at most MAX_FINDINGS. */
	diagnostics: Diagnostic[];
	omitted: number;
	/** The matchers whose findings these are. */
	matchers: string[];
}

/** Per-finding diagnostics from a failed job's output; null when no matcher recognises anything. */
export function outputDiagnostics(output: string, job: ReportJob): OutputFindings | null {
	const lines = cleanText(output.length > MAX_SCAN ? output.slice(0, MAX_SCAN) : output)
		.split("\n")
		.map((line) => (line.length > MAX_LINE ? "" : line.replace(/\r$/, "")));
	const named = matchersFor(job.command);
	let result = run(named, lines);
	if (result.findings.length === 0)
		result = run(
			MATCHERS.filter((matcher) => matcher.fallback !== false && !named.includes(matcher)),
			lines,
		);
	if (result.findings.length === 0) return null;
	const ordered = [...result.findings.filter((f) => f.severity === "error"), ...result.findings.filter((f) => f.severity !== "error")];
	return {
		diagnostics: ordered.slice(0, MAX_FINDINGS).map((found) => diagnosticOf(found, job)),
		omitted: Math.max(0, ordered.length - MAX_FINDINGS),
		matchers: result.matchers,
	};
}

function run(matchers: readonly Matcher[], lines: readonly string[]): { findings: Finding[]; matchers: string[] } {
	const findings: Finding[] = [];
	const used: string[] = [];
	const exact = new Set<string>();
	const owners = new Map<string, string>();
	for (const matcher of matchers) {
		let any = false;
		for (const found of matcher.match(lines)) {
			// A runner's closing summary repeats a failure: one finding. A place an earlier
			// (more specific) matcher already read is its finding, not a second one.
			const place = found.line !== undefined ? `${found.file ?? ""}\u0000${found.line}\u0000${found.col ?? ""}` : `${found.file ?? ""}\u0000${found.message}`;
			const key = `${place}\u0000${found.message}`;
			const owner = owners.get(place);
			if (exact.has(key) || (owner !== undefined && owner !== matcher.name)) continue;
			exact.add(key);
			owners.set(place, matcher.name);
			findings.push(found);
			any = true;
		}
		if (any) used.push(matcher.name);
	}
	return { findings, matchers: used };
}

function diagnosticOf(found: Finding, job: ReportJob): Diagnostic {
	const file = found.file === undefined ? undefined : reportPath(found.file, job);
	return {
		tool: job.name,
		severity: found.severity,
		message: oneLine(found.message),
		reproduce_cmd: job.command,
		...(file !== undefined ? { file: quoteName(file) } : {}),
		...(found.line !== undefined ? { line: found.line } : {}),
		...(found.col !== undefined ? { col: found.col } : {}),
		...(found.rule !== undefined ? { rule: oneLine(found.rule) } : {}),
	};
}
