import type { Diagnostic } from "../contract/envelope.ts";
import type { DiscernConfig } from "../config/schema.ts";
import { openLog } from "../gate/output.ts";
import { STANDARD_PREFIX } from "../gate/plan.ts";
import type { JobRun } from "../gate/runner.ts";
import { parseMetricOutput } from "./metrics.ts";
import { failing, judge, type Reading } from "./verdict.ts";

/** Metrics are read from the end of a measurement's log: the last occurrence wins anyway. */
const METRIC_TAIL_BYTES = 1024 * 1024;

/** The verdict of every standard that was measured in this run, in declaration order. */
export async function readingsOf(runs: readonly JobRun[], config: DiscernConfig): Promise<Reading[]> {
	const readings: Reading[] = [];
	for (const [name, standard] of Object.entries(config.standards)) {
		const run = runs.find((candidate) => candidate.job.label === `${STANDARD_PREFIX}${name}`);
		if (!run || run.outcome !== "ok" || !run.logPath) continue;
		const { values, invalid } = parseMetricOutput(await tail(run.logPath));
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

async function tail(path: string): Promise<string> {
	const handle = await openLog(path);
	if (!handle) return "";
	try {
		const { size } = await handle.stat();
		const length = Math.min(size, METRIC_TAIL_BYTES);
		const buffer = Buffer.alloc(length);
		await handle.read(buffer, 0, length, size - length);
		return buffer.toString("utf8");
	} finally {
		await handle.close();
	}
}
