import type { DiscernConfig } from "../config/schema.ts";
import type { Diagnostic } from "../contract/envelope.ts";
import { STANDARD_PREFIX } from "../jobs/plan.ts";
import type { JobRun } from "../jobs/runner.ts";
import { parseMetricOutput } from "./metrics.ts";
import { failing, judge, type Reading } from "./verdict.ts";

/** The verdict of every standard that was measured in this run, in declaration order. */
export function readingsOf(runs: readonly JobRun[], config: DiscernConfig): Reading[] {
	const readings: Reading[] = [];
	for (const [name, standard] of Object.entries(config.standards)) {
		const run = runs.find((candidate) => candidate.job.label === `${STANDARD_PREFIX}${name}`);
		// What the measurement printed, as the runner read it back through its own descriptor (see JobRun.measured).
		if (run?.outcome !== "ok" || run.measured === undefined) continue;
		const { values, invalid } = parseMetricOutput(run.measured);
		readings.push(judge(name, standard, values, invalid));
	}
	return readings;
}

/** One diagnostic per standard that regressed or could not be measured. */
export function standardDiagnostics(readings: readonly Reading[], config: DiscernConfig): Diagnostic[] {
	return readings.filter(failing).map((reading) => {
		const standard = config.standards[reading.name];
		const bound = standard?.direction === "down" ? "ceiling" : "floor";
		return {
			tool: `${STANDARD_PREFIX}${reading.name}`,
			severity: "error",
			message:
				reading.verdict === "unmeasured"
					? `standard ${reading.name} could not be measured: ${reading.problem ?? "no reading"}`
					: `standard ${reading.name} regressed: ${reading.value} is past its ${bound} of ${reading.limit}`,
			reproduce_cmd: standard?.run ?? "",
		};
	});
}
