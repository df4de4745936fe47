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
 * as a ratio to the baseline's median for the same phase, as the
 * difference between the two medians (what a condition adds to the same run),
 * or as the ratio of the two overheads over the floor (`overhead`: the
 * candidate's median time above the floor over the baseline's; 1 is a tie).
 */
export interface Budget {
	phase: string;
	kind: "absolute" | "ratio" | "difference" | "overhead";
	max: number;
}

export interface Benchmark {
	name: string;
	candidate: Probe;
	/** Measured in the same run; its phases pair with the candidate's phases of the same name. */
	baseline?: Probe;
	/**
	 * What neither side can beat, measured in the same run too (the bare
	 * shell running the same commands): each side's overhead is its time above it.
	 */
	floor?: Probe;
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
	floor?: Stats;
	/**
	 * Each side's time above the floor: the median over runs of (side − floor)
	 * in the same round, so that drift in the machine's load cancels out.
	 */
	overhead?: { candidate: Stats; baseline?: Stats };
}

export interface Measurement {
	name: string;
	candidate: string;
	baseline?: string;
	floor?: string;
	phases: PhaseResult[];
}

export interface RunSettings {
	runs: number;
	warmups: number;
	/** Called after each run (warm-ups included), for a progress line. */
	onRun?: (done: number, total: number) => void;
}

type Side = "candidate" | "baseline" | "floor";

/**
 * Time `candidate` (and `baseline` and `floor`, when given) `settings.runs`
 * times after `settings.warmups` discarded runs. The order within each round
 * rotates so that no side always runs right after another.
 */
export async function measure(name: string, candidate: Probe, baseline: Probe | undefined, settings: RunSettings, floor?: Probe): Promise<Measurement> {
	const samples: Record<Side, Map<string, number[]>> = { candidate: new Map(), baseline: new Map(), floor: new Map() };
	const total = settings.warmups + settings.runs;
	for (let i = 0; i < total; i++) {
		const round: [Side, Probe][] = [["candidate", candidate]];
		if (baseline) round.push(["baseline", baseline]);
		if (floor) round.push(["floor", floor]);
		for (const [side, probe] of orderOf(round, i)) {
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
		const floored = samples.floor.get(phase);
		if (floored) {
			result.floor = summarize(floored);
			result.overhead = { candidate: summarize(above(values, floored)), ...(paired ? { baseline: summarize(above(paired, floored)) } : {}) };
		}
		phases.push(result);
	}
	return { name, candidate: candidate.label, ...(baseline ? { baseline: baseline.label } : {}), ...(floor ? { floor: floor.label } : {}), phases };
}

/** Two sides alternate; three rotate and alternate direction (all six orders in six rounds). */
function orderOf<T>(sides: readonly T[], round: number): T[] {
	if (sides.length < 3) return round % 2 === 1 ? [...sides].reverse() : [...sides];
	const turned = sides.map((_, k) => sides[(k + Math.floor(round / 2)) % sides.length] as T);
	return round % 2 === 1 ? turned.reverse() : turned;
}

/** Each run's figure minus the floor's of the same round. */
function above(values: readonly number[], floor: readonly number[]): number[] {
	return values.map((value, i) => value - (floor[i] ?? Number.NaN));
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
