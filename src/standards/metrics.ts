/**
 * A standard's command reports its number on a line of its own:
 * `DISCERN_METRIC <name> <number>`. The last occurrence of a name wins, so
 * a tool may print progress readings before its final one.
 */
const METRIC_LINE = /^\s*DISCERN_METRIC\s+(\S+)\s+(\S+)\s*$/;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

export interface MetricOutput {
	/** Each metric's last reading. */
	values: Map<string, number>;
	/** Metrics whose last line carried something other than a number, with what it carried. */
	invalid: Map<string, string>;
}

/** Every metric a command printed; a last line that is not a number is kept as the problem it is. */
export function parseMetricOutput(output: string): MetricOutput {
	const values = new Map<string, number>();
	const invalid = new Map<string, string>();
	for (const line of output.split("\n")) {
		const match = METRIC_LINE.exec(line.replace(/\r$/, ""));
		if (!match?.[1] || match[2] === undefined) continue;
		const value = Number(match[2]);
		if (NUMBER.test(match[2]) && Number.isFinite(value)) {
			values.set(match[1], value);
			invalid.delete(match[1]);
		} else {
			invalid.set(match[1], match[2].slice(0, 40));
			values.delete(match[1]);
		}
	}
	return { values, invalid };
}

export function parseMetrics(output: string): Map<string, number> {
	return parseMetricOutput(output).values;
}
