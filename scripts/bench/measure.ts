/**
 * The measuring core of `scripts/bench.ts`: run a candidate and its baseline
 * interleaved, run by run, so that the noise of a shared machine lands on
 * both, and summarize each side by median and p90.
 */

/** One run's figures, by phase. Most probes report a single phase, `WHOLE`. */
export type Phases = Readonly<Record<string, number>>;

/** The phase of a probe that times one thing from start to end. */
export const WHOLE = "whole";

export interface Probe {
	/** What runs, for the table: "hello-world", "git status". */
	label: string;
	/** One timed run. Throws when the run itself went wrong (bad exit, no answer). */
	run: () => Promise<Phases>;
}

export type Unit = "ms" | "MB" | "bytes";

/**
 * A limit on one phase's median: absolute (`max` in the benchmark's unit),
 * as a ratio to the baseline's median for the same phase, or as the
 * difference between the two medians (what a condition adds to the same run).
 */
export interface Budget {
	phase: string;
	kind: "absolute" | "ratio" | "difference";
	max: number;
}

export interface Benchmark {
	name: string;
	candidate: Probe;
	/** Measured in the same run; its phases pair with the candidate's phases of the same name. */
	baseline?: Probe;
	budgets: readonly Budget[];
	unit?: Unit;
	/** Caps the run count for slow benchmarks (a gate run takes seconds). */
	maxRuns?: number;
	/** Phases shown for information: a row with a note instead of a budget. */
	notes?: Readonly<Record<string, string>>;
}

export interface Stats {
	median: number;
	p90: number;
	min: number;
	max: number;
	n: number;
}

export interface PhaseResult {
	phase: string;
	candidate: Stats;
	baseline?: Stats;
	/** Candidate median over baseline median. */
	ratio?: number;
}

export interface Measurement {
	name: string;
	candidate: string;
	baseline?: string;
	phases: PhaseResult[];
}

export interface RunSettings {
	runs: number;
	warmups: number;
	/** Called after each run (warm-ups included), for a progress line. */
	onRun?: (done: number, total: number) => void;
}

/**
 * Time `candidate` (and `baseline`, when given) `settings.runs` times after
 * `settings.warmups` discarded runs. The order within each pair alternates
 * so that neither side always runs right after the other.
 */
export async function measure(name: string, candidate: Probe, baseline: Probe | undefined, settings: RunSettings): Promise<Measurement> {
	const samples = { candidate: new Map<string, number[]>(), baseline: new Map<string, number[]>() };
	const total = settings.warmups + settings.runs;
	for (let i = 0; i < total; i++) {
		const pair: ["candidate" | "baseline", Probe][] = [["candidate", candidate]];
		if (baseline) pair.push(["baseline", baseline]);
		if (i % 2 === 1) pair.reverse();
		for (const [side, probe] of pair) {
			const phases = await probe.run();
			if (i < settings.warmups) continue;
			for (const [phase, value] of Object.entries(phases)) {
				const list = samples[side].get(phase) ?? [];
				list.push(value);
				samples[side].set(phase, list);
			}
		}
		settings.onRun?.(i + 1, total);
	}

	const phases: PhaseResult[] = [];
	for (const [phase, values] of samples.candidate) {
		const result: PhaseResult = { phase, candidate: summarize(values) };
		const paired = samples.baseline.get(phase);
		if (paired) {
			result.baseline = summarize(paired);
			result.ratio = result.candidate.median / result.baseline.median;
		}
		phases.push(result);
	}
	return { name, candidate: candidate.label, ...(baseline ? { baseline: baseline.label } : {}), phases };
}

export function summarize(values: readonly number[]): Stats {
	const sorted = [...values].sort((a, b) => a - b);
	const at = (index: number): number => sorted[Math.min(Math.max(index, 0), sorted.length - 1)] ?? Number.NaN;
	const middle = Math.floor(sorted.length / 2);
	const median = sorted.length % 2 === 1 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
	// Nearest rank: the smallest sample with at least 90 % of samples at or below it.
	const p90 = at(Math.ceil(sorted.length * 0.9) - 1);
	return { median, p90, min: at(0), max: at(sorted.length - 1), n: sorted.length };
}
