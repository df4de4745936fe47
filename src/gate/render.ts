import type { Result } from "../contract/envelope.ts";
import type { RenderOptions } from "../contract/verbs.ts";
import { MARK, paint } from "../ui/style.ts";

const OUTCOME_MARK = { ok: ["✔", "green"], failed: ["✖", "red"], cancelled: ["■", "yellow"], skipped: ["·", "dim"] } as const;

/** Lines of a job's output shown in the terminal; the envelope and the log file keep more. */
const TAIL_LINES = 25;

/** The steps that ran and, for each failure, the command to reproduce it and the end of its output. */
export function renderGateRun(result: Result<string, unknown>, { color, verbose }: RenderOptions): string {
	const lines: string[] = [];
	const width = Math.max(0, ...(result.steps ?? []).map((step) => step.label.length));
	for (const step of result.steps ?? []) {
		const [mark, style] = OUTCOME_MARK[step.outcome];
		const exit = step.outcome === "failed" && step.exit_code !== undefined ? `  exit ${step.exit_code}` : "";
		lines.push(`${paint(mark, style, color)} ${step.label.padEnd(width)}  ${paint(`${step.stage ?? ""} ${step.duration_s.toFixed(1)} s${exit}`, "dim", color)}`);
	}
	for (const item of result.plan ?? []) {
		lines.push(`${item.disposition === "run" ? "→" : "·"} ${item.label}${item.note ? `  ${paint(item.note, "dim", color)}` : ""}`);
	}
	for (const diagnostic of result.diagnostics ?? []) {
		if (diagnostic.file) {
			const where = `${diagnostic.file}${diagnostic.line ? `:${diagnostic.line}` : ""}${diagnostic.col ? `:${diagnostic.col}` : ""}`;
			lines.push(`  ${paint(diagnostic.severity === "error" ? MARK.fail : MARK.warn, "red", color)} ${where}  ${diagnostic.message}${diagnostic.rule ? paint(` [${diagnostic.rule}]`, "dim", color) : ""}`);
			continue;
		}
		lines.push("", `${paint(MARK.fail, "red", color)} ${diagnostic.message}`, `  reproduce: ${diagnostic.reproduce_cmd}`);
		if (diagnostic.output) {
			const outputLines = diagnostic.output.trimEnd().split("\n");
			const shown = verbose ? outputLines : outputLines.slice(-TAIL_LINES);
			if (shown.length < outputLines.length) lines.push(paint(`  … ${outputLines.length - shown.length} earlier line(s)`, "dim", color));
			lines.push(...shown.map((line) => `  │ ${line}`));
		}
		if (diagnostic.output_path) lines.push(paint(`  full output: ${diagnostic.output_path}`, "dim", color));
	}
	// The one-sentence summary (the Proof line, "prepare passed: …", "nothing ran"); a failure's
	// message is printed by the CLI with its code.
	const proven = (result.data as { proof?: unknown } | undefined)?.proof;
	if (result.ok && !result.dry_run) lines.push("", proven ? paint(result.message, "bold", color) : result.message);
	return lines.join("\n");
}
