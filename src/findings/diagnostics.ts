import { join } from "node:path";
import type { Diagnostic, Step } from "../contract/envelope.ts";
import { readExcerpt, readHead, readUpTo } from "../jobs/output.ts";
import type { JobRun } from "../jobs/runner.ts";
import { clip } from "../text/clip.ts";
import { noun } from "../text/plural.ts";

/** Reports and outputs larger than this are not scanned for SARIF/JUnit. */
// Parsing is done in memory; keep it well inside discern's memory budget.
const REPORT_SCAN_LIMIT = 4 * 1024 * 1024;

export function stepsOf(runs: readonly JobRun[]): Step[] {
	return runs.map((run) => ({
		kind: run.job.kind,
		label: run.job.label,
		stage: run.job.stage,
		outcome: run.outcome,
		duration_s: run.durationS,
		...(run.exitCode !== undefined ? { exit_code: run.exitCode } : {}),
		...(run.logPath ? { output_path: run.logPath } : {}),
	}));
}

/**
 * One diagnostic per failed job (with a bounded excerpt of its output), then
 * one per finding: from the job's SARIF or JUnit XML (its output or its
 * declared report) when it has one, else from its output as the tool prints
 * it by default (tsc, ESLint, pytest, cargo… — see matchers/). Each
 * finding's file is then named from the repository root (finding-paths.ts).
 */
export async function diagnosticsOf(runs: readonly JobRun[], root: string): Promise<Diagnostic[]> {
	const diagnostics: Diagnostic[] = [];
	const failed = runs.filter((run) => run.outcome === "failed" && run.logPath);
	if (failed.length === 0) return diagnostics;
	// The readers of findings (the tools' matchers, SARIF and JUnit, finding paths) are two thousand lines a green gate never needs.
	const [{ outputDiagnostics }, { reportDiagnostics }, { findingPaths }] = await Promise.all([
		import("./matchers/index.ts"),
		import("./reports/detect.ts"),
		import("./finding-paths.ts"),
	]);
	const paths = findingPaths(root);
	for (const run of failed) {
		if (!run.logPath) continue;
		const command = run.failedCommand ?? run.job.commands.join(" && ");
		const excerpt = await readExcerpt(run.logPath, undefined, run.outputBytes);
		diagnostics.push({
			tool: run.job.label,
			severity: "error",
			message: run.timedOut
				? `${run.job.label} timed out after ${run.job.timeout} s (the whole process tree was killed)`
				: `${run.job.label} failed (exit ${run.exitCode ?? "?"})`,
			reproduce_cmd: command,
			output: excerpt.text,
			...(excerpt.truncated ? { truncated: true } : {}),
			output_path: run.logPath,
		});
		// A declared report the job did not write this time is a leftover: its findings are not news.
		const log = run.job.report ? null : await readUpTo(run.logPath, REPORT_SCAN_LIMIT);
		const text = run.job.report ? (run.reportFresh ? await readReport(join(root, run.job.report)) : null) : log;
		const found = text === null ? null : reportDiagnostics(text, { name: run.job.label, command, root });
		if (!found) {
			// A huge log is read for findings from its head: the tools print their findings first.
			const output = log ?? (await readHead(run.logPath, REPORT_SCAN_LIMIT));
			const read = output === null ? null : outputDiagnostics(output, { name: run.job.label, command, root });
			if (!read) continue;
			diagnostics.push(...(await paths.resolve(read.diagnostics, command)).map(boundedFinding));
			if (read.omitted > 0) {
				diagnostics.push({
					tool: run.job.label,
					severity: "warning",
					message: `${read.omitted} more ${noun(read.omitted, "finding was", "findings were")} left out; the whole output is in ${run.logPath}`,
					reproduce_cmd: command,
				});
			}
			continue;
		}
		diagnostics.push(...(await paths.resolve(found.diagnostics, command)).map(boundedFinding));
		if (found.omitted > 0) {
			diagnostics.push({
				tool: run.job.label,
				severity: "warning",
				message: `${found.omitted} more ${found.format === "sarif" ? "SARIF" : "JUnit"} ${noun(found.omitted, "finding was", "findings were")} left out; the whole report is in the job's output or report file`,
				reproduce_cmd: command,
			});
		}
	}
	return diagnostics;
}

/**
 * A report can make every finding repeat one long text (a rule's message
 * string, a huge `{0}` argument, one artifact's URI, the job's command): each
 * field of a finding is bounded, so the 500 findings listed stay a bounded answer.
 */
function boundedFinding(finding: Diagnostic): Diagnostic {
	return {
		...finding,
		message: clip(finding.message, 2_000),
		reproduce_cmd: clip(finding.reproduce_cmd, 2_000),
		...(finding.rule !== undefined ? { rule: clip(finding.rule, 200) } : {}),
		...(finding.file !== undefined ? { file: clip(finding.file, 4_096) } : {}),
		...(finding.output !== undefined ? { output: clip(finding.output, 4_000) } : {}),
	};
}

async function readReport(path: string): Promise<string | null> {
	try {
		return await readUpTo(path, REPORT_SCAN_LIMIT);
	} catch {
		return null; // The job failed before writing its report: the job diagnostic says enough.
	}
}
