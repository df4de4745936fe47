import type { Result } from "../contract/envelope.ts";
import type { RenderOptions } from "../contract/verb.ts";
import { MARK, paint } from "../ui/style.ts";
import { plural } from "../text/plural.ts";

const OUTCOME_MARK = { ok: ["✔", "green"], failed: ["✖", "red"], cancelled: ["■", "yellow"], skipped: ["·", "dim"] } as const;

/** Lines of a job's output shown in the terminal; the envelope and the log file keep more. */
const TAIL_LINES = 25;

export interface Reading {
	name: string;
	verdict: string;
	value: number | null;
	limit: number;
}

/** Each step with its outcome: one aligned line per job. */
export function stepLines(result: Result<string, unknown>, color: boolean): string[] {
	const lines: string[] = [];
	const width = Math.max(0, ...(result.steps ?? []).map((step) => step.label.length));
	for (const step of result.steps ?? []) {
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

/**
 * For each failure the command to reproduce it and the end of its output
 * (all of it with --verbose); findings with a file as `file:line:col`.
 */
export function diagnosticLines(result: Result<string, unknown>, { color, verbose }: RenderOptions): string[] {
	const lines: string[] = [];
	for (const diagnostic of result.diagnostics ?? []) {
		if (diagnostic.file) {
			const where = `${diagnostic.file}${diagnostic.line ? `:${diagnostic.line}` : ""}${diagnostic.col ? `:${diagnostic.col}` : ""}`;
			const mark = diagnostic.severity === "error" ? paint(MARK.fail, "red", color) : paint(MARK.warn, "yellow", color);
			lines.push(`  ${mark} ${where}  ${diagnostic.message}${diagnostic.rule ? paint(` [${diagnostic.rule}]`, "dim", color) : ""}`);
			continue;
		}
		lines.push("", `${paint(diagnostic.tool, "bold", color)}  ${paint(`reproduce: ${diagnostic.reproduce_cmd}`, "dim", color)}`);
		if (diagnostic.output) {
			const outputLines = diagnostic.output.trimEnd().split("\n");
			const shown = verbose ? outputLines : outputLines.slice(-TAIL_LINES);
			if (shown.length < outputLines.length) lines.push(paint(`  … ${plural(outputLines.length - shown.length, "earlier line")}; --verbose shows them`, "dim", color));
			lines.push(...shown.map((line) => `  │ ${line}`));
		} else if (diagnostic.tool.startsWith("standard:")) {
			lines.push(`  ${diagnostic.message}`);
		}
		if (diagnostic.output_path) lines.push(paint(`  full output: ${diagnostic.output_path}`, "dim", color));
	}
	return lines;
}

/** Lines joined, without the blank lines a section may start with. */
export function joinLines(lines: string[]): string {
	while (lines[0] === "") lines.shift();
	return lines.join("\n");
}
