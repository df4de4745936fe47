import type { DiscernConfig } from "../config/schema.ts";

export type StandardDefinition = DiscernConfig["standards"][string];
export type Verdict = "held" | "improved" | "regressed" | "unmeasured";

export interface Reading {
	name: string;
	verdict: Verdict;
	/** The measured value after `per` and `scale`; null when it could not be read. */
	value: number | null;
	limit: number;
	/** Why it is unmeasured, when it is. */
	problem?: string;
}

/**
 * Turn a standard's emitted metrics into a verdict. The metric decides, not
 * the exit code: `up` makes the limit a floor, `down` a ceiling; strictly
 * better than the limit is `improved`, equal is `held`.
 */
export function judge(name: string, standard: StandardDefinition, metrics: ReadonlyMap<string, number>): Reading {
	const metricName = standard.metric ?? name;
	const base = metrics.get(metricName);
	const limit = standard.limit;
	if (base === undefined) return { name, verdict: "unmeasured", value: null, limit, problem: `no \`DISCERN_METRIC ${metricName} <number>\` line in its output` };
	let value = base;
	if (standard.per !== undefined) {
		const divisor = metrics.get(standard.per);
		if (divisor === undefined || divisor === 0) {
			return { name, verdict: "unmeasured", value: null, limit, problem: `\`per = "${standard.per}"\` needs a non-zero \`DISCERN_METRIC ${standard.per} <number>\`` };
		}
		value /= divisor;
	}
	if (standard.scale !== undefined) value *= standard.scale;
	const better = standard.direction === "up" ? value > limit : value < limit;
	const worse = standard.direction === "up" ? value < limit : value > limit;
	return { name, verdict: worse ? "regressed" : better ? "improved" : "held", value, limit };
}

export function failing(reading: Reading): boolean {
	return reading.verdict === "regressed" || reading.verdict === "unmeasured";
}
