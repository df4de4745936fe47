import * as v from "valibot";
import type { DiscernConfig } from "../config/schema.ts";

export type StandardDefinition = DiscernConfig["standards"][string];
export const VERDICTS = ["held", "improved", "regressed", "unmeasured"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One standard's reading as results report it (`done`, `standards`). */
export const StandardReading = v.strictObject({
	name: v.string(),
	verdict: v.picklist(VERDICTS),
	value: v.nullable(v.number()),
	limit: v.number(),
});

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
 * better than the limit is `improved`, equal is `held`. `invalid` holds the
 * metrics whose last line carried something other than a number.
 */
export function judge(
	name: string,
	standard: StandardDefinition,
	metrics: ReadonlyMap<string, number>,
	invalid: ReadonlyMap<string, string> = new Map(),
): Reading {
	const metricName = standard.metric ?? name;
	const base = metrics.get(metricName);
	const limit = standard.limit;
	const notANumber = (metric: string) => {
		const carried = invalid.get(metric);
		return carried === undefined ? null : `its last \`DISCERN_METRIC ${metric}\` line carries \`${carried}\`, which is not a number`;
	};
	if (base === undefined) {
		return {
			name,
			verdict: "unmeasured",
			value: null,
			limit,
			problem: notANumber(metricName) ?? `no \`DISCERN_METRIC ${metricName} <number>\` line in its output`,
		};
	}
	let value = base;
	if (standard.per !== undefined) {
		const divisor = metrics.get(standard.per);
		if (divisor === undefined || divisor === 0) {
			const why = notANumber(standard.per) ?? `\`per = "${standard.per}"\` needs a non-zero \`DISCERN_METRIC ${standard.per} <number>\``;
			return { name, verdict: "unmeasured", value: null, limit, problem: why };
		}
		value /= divisor;
	}
	if (standard.scale !== undefined) value *= standard.scale;
	return { name, verdict: verdictOf(standard, value, limit), value, limit };
}

/** A value against a limit: strictly better improves, equal holds, worse regresses. */
export function verdictOf(standard: Pick<StandardDefinition, "direction">, value: number, limit: number): Exclude<Verdict, "unmeasured"> {
	const better = standard.direction === "up" ? value > limit : value < limit;
	const worse = standard.direction === "up" ? value < limit : value > limit;
	return worse ? "regressed" : better ? "improved" : "held";
}

export function failing(reading: Pick<Reading, "verdict">): boolean {
	return reading.verdict === "regressed" || reading.verdict === "unmeasured";
}
