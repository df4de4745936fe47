import type { Diagnostic, Result } from "../contract/envelope.ts";
import type { RenderOptions } from "../contract/verb.ts";
import { plural } from "../text/plural.ts";
import { MARK, paint } from "./style.ts";

const OUTCOME_MARK = { ok: ["✔", "green"], failed: ["✖", "red"], cancelled: ["■", "yellow"], skipped: ["·", "dim"] } as const;

/** Lines of a job's output shown in the terminal; the envelope and the log file keep more. */
const TAIL_LINES = 25;

export interface Reading {
	name: string;
	verdict: string;
	value: number | null;
	limit: number;
}

/**
 * Each step with its outcome: one aligned line per job. A job whose finished
 * line the CLI already wrote where this text goes (a merged CI log) is left
 * out: every job once.
 */
export function stepLines(result: Result<string, unknown>, { color, narratedSteps }: Pick<RenderOptions, "color" | "narratedSteps">): string[] {
	const lines: string[] = [];
	const steps = (result.steps ?? []).filter((step) => !narratedSteps?.has(step.label));
	const width = Math.max(0, ...steps.map((step) => step.label.length));
	for (const step of steps) {
		const [mark, style] = OUTCOME_MARK[step.outcome];
		const detail =
			step.outcome === "skipped"
				? "skipped"
				: `${step.stage ?? ""} ${step.duration_s.toFixed(1)} s${step.outcome === "cancelled" ? ", cancelled" : ""}${step.outcome === "failed" && step.exit_code !== undefined ? `, exit ${step.exit_code}` : ""}`;
		lines.push(`${paint(mark, style, color)} ${step.label.padEnd(width)}  ${paint(detail, "dim", color)}`);
	}
	return lines;
}

/** The standards' readings against their limits. */
export function readingLines(readings: readonly Reading[], color: boolean): string[] {
	return readings.map((reading) => {
		const bad = reading.verdict === "regressed" || reading.verdict === "unmeasured";
		const value = reading.value === null ? "no reading" : String(reading.value);
		return `${paint(bad ? MARK.fail : MARK.ok, bad ? "red" : "green", color)} standard ${reading.name}: ${value} (limit ${reading.limit}, ${reading.verdict})`;
	});
}

/** A dry run's plan: what would run, what would be skipped and why. */
export function planLines(result: Result<string, unknown>, color: boolean): string[] {
	return (result.plan ?? []).map((item) => `${item.disposition === "run" ? "→" : "·"} ${item.label}${item.note ? `  ${paint(item.note, "dim", color)}` : ""}`);
}

/** Lines of a job's output shown when its findings were read out of it: the findings say the rest. */
const TAIL_LINES_WITH_FINDINGS = 8;

/**
 * For each failed job the command to reproduce it, the end of its output
 * (all of it with --verbose), then its findings, one per line as
 * `file:line:col  rule  message` (locations aligned, so a terminal makes them
 * clickable and an agent can jump to them).
 */
export function diagnosticLines(result: Result<string, unknown>, { color, verbose }: RenderOptions): string[] {
	const lines: string[] = [];
	const diagnostics = result.diagnostics ?? [];
	for (let i = 0; i < diagnostics.length; i++) {
		const diagnostic = diagnostics[i] as Diagnostic;
		const findings: Diagnostic[] = [];
		while (i + 1 < diagnostics.length && isFinding(diagnostics[i + 1] as Diagnostic, diagnostic.tool)) findings.push(diagnostics[++i] as Diagnostic);
		if (isFinding(diagnostic, undefined)) {
			findings.unshift(diagnostic); // Findings of a job whose own diagnostic is not in this list.
			lines.push("", paint(diagnostic.tool, "bold", color));
		} else {
			lines.push("", `${paint(diagnostic.tool, "bold", color)}  ${paint(`reproduce: ${diagnostic.reproduce_cmd}`, "dim", color)}`);
			if (diagnostic.output) {
				const outputLines = diagnostic.output.trimEnd().split("\n");
				const tail = findings.length > 0 ? TAIL_LINES_WITH_FINDINGS : TAIL_LINES;
				const shown = verbose ? outputLines : outputLines.slice(-tail);
				if (shown.length < outputLines.length)
					lines.push(paint(`  … ${plural(outputLines.length - shown.length, "earlier line")}; --verbose shows them`, "dim", color));
				lines.push(...shown.map((line) => `  │ ${line}`));
			} else if (diagnostic.tool.startsWith("standard:")) {
				lines.push(`  ${diagnostic.message}`);
			}
			if (diagnostic.output_path) lines.push(paint(`  full output: ${diagnostic.output_path}`, "dim", color));
		}
		lines.push(...findingLines(findings, color));
	}
	return lines;
}

/** A per-finding diagnostic: it has a place, or it follows its job's diagnostic without output of its own. */
function isFinding(diagnostic: Diagnostic, tool: string | undefined): boolean {
	if (diagnostic.file !== undefined) return tool === undefined || diagnostic.tool === tool;
	return (
		tool !== undefined &&
		diagnostic.tool === tool &&
		diagnostic.output === undefined &&
		diagnostic.output_path === undefined &&
		!diagnostic.tool.startsWith("standard:")
	);
}

function findingLines(findings: readonly Diagnostic[], color: boolean): string[] {
	const where = findings.map((finding) =>
		finding.file ? `${finding.file}${finding.line ? `:${finding.line}` : ""}${finding.col ? `:${finding.col}` : ""}` : "",
	);
	const whereWidth = Math.max(0, ...where.map((text) => text.length));
	const ruleWidth = Math.max(0, ...findings.map((finding) => finding.rule?.length ?? 0));
	return findings.map((finding, index) => {
		const mark = finding.severity === "error" ? paint(MARK.fail, "red", color) : paint(MARK.warn, "yellow", color);
		const place = whereWidth > 0 ? `${(where[index] ?? "").padEnd(whereWidth)}  ` : "";
		const rule = ruleWidth > 0 ? `${paint((finding.rule ?? "").padEnd(ruleWidth), "dim", color)}  ` : "";
		return `  ${mark} ${place}${rule}${finding.message}`.trimEnd();
	});
}

/** Lines joined, without the blank lines a section may start with. */
export function joinLines(lines: string[]): string {
	while (lines[0] === "") lines.shift();
	return lines.join("\n");
}
