/** Turning measurements into verdicts, a table for people and one JSON object for tools. */
import { type Benchmark, type Budget, type Measurement, type PhaseResult, type Stats, type Unit, WHOLE } from "./measure.ts";

export interface Verdict {
	benchmark: string;
	phase: string;
	kind: Budget["kind"];
	/**
	 * The candidate's median (absolute), its ratio to the baseline's median, the
	 * difference of the two, or its overhead over the floor over the baseline's.
	 */
	figure: number;
	/** For an `overhead` budget: each side's median time above the floor. */
	overheads?: { candidate: number; baseline: number };
	max: number;
	unit: Unit | "×";
	pass: boolean;
}

export interface Outcome {
	benchmark: Benchmark;
	measurement: Measurement;
}

export function judge(outcomes: readonly Outcome[]): Verdict[] {
	return outcomes.flatMap(({ benchmark, measurement }) =>
		benchmark.budgets.map((budget): Verdict => {
			const phase = measurement.phases.find((candidate) => candidate.phase === budget.phase);
			if (!phase) throw new Error(`${benchmark.name}: its budget names phase "${budget.phase}", which the probe never reported`);
			const overheads = phase.overhead?.baseline && { candidate: phase.overhead.candidate.median, baseline: phase.overhead.baseline.median };
			const figure =
				budget.kind === "ratio"
					? phase.ratio
					: budget.kind === "difference"
						? phase.baseline && phase.candidate.median - phase.baseline.median
						: budget.kind === "overhead"
							? overheads && overheads.candidate / overheads.baseline
							: phase.candidate.median;
			if (figure === undefined) {
				throw new Error(
					`${benchmark.name}: a ${budget.kind} budget needs a baseline${budget.kind === "overhead" ? " and a floor" : ""} for phase "${budget.phase}"`,
				);
			}
			const unit = budget.kind === "ratio" || budget.kind === "overhead" ? "×" : (benchmark.unit ?? "ms");
			// A baseline with no overhead at all leaves nothing to be under (a division by zero or below): only a candidate at or under the floor passes.
			const pass = budget.kind === "overhead" && overheads && overheads.baseline <= 0 ? overheads.candidate <= 0 : figure <= budget.max;
			return {
				benchmark: benchmark.name,
				phase: budget.phase,
				kind: budget.kind,
				figure,
				max: budget.max,
				unit,
				pass,
				...(budget.kind === "overhead" && overheads ? { overheads } : {}),
			};
		}),
	);
}

export interface Header {
	runs: number;
	warmups: number;
	/** One-minute load average before and after: how noisy the machine was while measuring. */
	load: readonly [number, number];
}

export function renderTable(header: Header, outcomes: readonly Outcome[], verdicts: readonly Verdict[]): string {
	const rows: string[][] = [["benchmark", "median", "p90", "ratio", "over floor", "budget"]];
	for (const { benchmark, measurement } of outcomes) {
		const unit = benchmark.unit ?? "ms";
		for (const phase of measurement.phases) {
			const budgets = benchmark.budgets.filter((budget) => budget.phase === phase.phase).map((budget) => budgetText(budget, unit));
			const note = benchmark.notes?.[phase.phase];
			rows.push([
				rowName(benchmark.name, phase),
				value(phase.candidate.median, unit),
				value(phase.candidate.p90, unit),
				phase.ratio === undefined ? "" : `${phase.ratio.toFixed(2)}×`,
				phase.overhead ? `+${value(phase.overhead.candidate.median, unit)}` : "",
				[...budgets, ...(note ? [note] : [])].join(", "),
			]);
			if (phase.baseline && measurement.baseline) {
				const over = phase.overhead?.baseline ? `+${value(phase.overhead.baseline.median, unit)}` : "";
				rows.push([`  baseline: ${measurement.baseline}`, value(phase.baseline.median, unit), value(phase.baseline.p90, unit), "", over, ""]);
			}
			if (phase.floor && measurement.floor) {
				rows.push([`  floor: ${measurement.floor}`, value(phase.floor.median, unit), value(phase.floor.p90, unit), "", "", ""]);
			}
		}
	}
	const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
	const lines = rows.map((row) =>
		row
			.map((cell, column) => (column === 0 || column === row.length - 1 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
			.join("  ")
			.trimEnd(),
	);
	lines.splice(1, 0, "-".repeat(Math.max(...lines.map((line) => line.length))));

	const environment = `bun ${Bun.version}, ${process.platform}-${process.arch}, ${navigator.hardwareConcurrency} cpus, load ${header.load[0].toFixed(2)} → ${header.load[1].toFixed(2)}`;
	return [
		`discern bench: median and p90 of ${header.runs} runs after ${header.warmups} warm-up${header.warmups === 1 ? "" : "s"}, candidate and baseline interleaved`,
		`(${environment})`,
		"",
		...lines,
		"",
		...verdicts.map(verdictLine),
		"",
	].join("\n");
}

export function renderJson(header: Header, outcomes: readonly Outcome[], verdicts: readonly Verdict[]): string {
	const json = {
		runs: header.runs,
		warmups: header.warmups,
		environment: {
			bun: Bun.version,
			platform: process.platform,
			arch: process.arch,
			cpus: navigator.hardwareConcurrency,
			load: header.load.map(round),
		},
		benchmarks: outcomes.map(({ benchmark, measurement }) => ({
			name: measurement.name,
			unit: benchmark.unit ?? "ms",
			candidate: measurement.candidate,
			...(measurement.baseline ? { baseline: measurement.baseline } : {}),
			...(measurement.floor ? { floor: measurement.floor } : {}),
			phases: measurement.phases.map((phase) => ({
				phase: phase.phase,
				candidate: rounded(phase.candidate),
				...(phase.baseline ? { baseline: rounded(phase.baseline) } : {}),
				...(phase.ratio === undefined ? {} : { ratio: round(phase.ratio) }),
				...(phase.floor ? { floor: rounded(phase.floor) } : {}),
				...(phase.overhead
					? { overhead: { candidate: rounded(phase.overhead.candidate), ...(phase.overhead.baseline ? { baseline: rounded(phase.overhead.baseline) } : {}) } }
					: {}),
			})),
		})),
		budgets: verdicts.map((verdict) => ({
			...verdict,
			figure: round(verdict.figure),
			...(verdict.overheads ? { overheads: { candidate: round(verdict.overheads.candidate), baseline: round(verdict.overheads.baseline) } } : {}),
		})),
		pass: verdicts.every((verdict) => verdict.pass),
	};
	return `${JSON.stringify(json)}\n`;
}

function verdictLine(verdict: Verdict): string {
	const what =
		verdict.kind === "ratio"
			? "median ratio to baseline"
			: verdict.kind === "difference"
				? "median minus the baseline's"
				: verdict.kind === "overhead" && verdict.overheads
					? `overhead over the floor ${value(verdict.overheads.candidate, "ms")} vs the baseline's ${value(verdict.overheads.baseline, "ms")}, ratio`
					: "median";
	const name = verdict.phase === WHOLE ? verdict.benchmark : `${verdict.benchmark} ${verdict.phase}`;
	const figure = verdict.unit === "×" ? `${verdict.figure.toFixed(2)}×` : value(verdict.figure, verdict.unit);
	const max = verdict.unit === "×" ? `${verdict.max.toFixed(1)}×` : value(verdict.max, verdict.unit);
	return `${verdict.pass ? "PASS" : "FAIL"}  ${name}: ${what} ${figure} (budget ≤ ${max})`;
}

function rowName(benchmark: string, phase: PhaseResult): string {
	return phase.phase === WHOLE ? benchmark : `${benchmark} ${phase.phase}`;
}

function budgetText(budget: Budget, unit: Unit): string {
	if (budget.kind === "ratio") return `≤ ${budget.max.toFixed(1)}×`;
	if (budget.kind === "overhead") return `overhead ≤ ${budget.max.toFixed(1)}× the baseline's`;
	return budget.kind === "difference" ? `≤ baseline + ${value(budget.max, unit)}` : `≤ ${value(budget.max, unit)}`;
}

function value(figure: number, unit: Unit): string {
	return `${figure.toFixed(unit === "bytes" ? 0 : 1)} ${unit}`;
}

function round(figure: number): number {
	return Math.round(figure * 100) / 100;
}

function rounded(stats: Stats): Stats {
	return { median: round(stats.median), p90: round(stats.p90), min: round(stats.min), max: round(stats.max), n: stats.n };
}
