/**
 * A standard's command reports its number on a line of its own:
 * `DISCERN_METRIC <name> <number>`. The last occurrence of a name wins, so
 * a tool may print progress readings before its final one.
 */
const METRIC_LINE = /^\s*DISCERN_METRIC\s+(\S+)\s+(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$/;

export function parseMetrics(output: string): Map<string, number> {
	const metrics = new Map<string, number>();
	for (const line of output.split("\n")) {
		const match = METRIC_LINE.exec(line);
		if (!match?.[1] || match[2] === undefined) continue;
		const value = Number(match[2]);
		if (Number.isFinite(value)) metrics.set(match[1], value);
	}
	return metrics;
}
