import type { DiscernConfig } from "../config/schema.ts";
import type { VerbContext } from "../contract/context.ts";
import type { Diagnostic } from "../contract/envelope.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import { type Execution, executePlan } from "../jobs/execute.ts";
import { planStandards } from "../jobs/plan.ts";
import { readingsOf, standardDiagnostics } from "./readings.ts";
import { failing, type Reading } from "./verdict.ts";

export interface Measurement {
	execution: Execution;
	/** One per selected standard, in declaration order: a run that did not finish reads `unmeasured`. */
	readings: Reading[];
	diagnostics: Diagnostic[];
	/** Some selected standard regressed or could not be measured. */
	failed: boolean;
}

/**
 * Measure the selected standards fresh, on the working tree as it is: the
 * same measurement jobs `done` runs beside its checks (jobs/plan.ts), the
 * same reading of their `DISCERN_METRIC` lines and the same verdicts.
 */
export async function measureStandards(
	ctx: VerbContext,
	repository: RepositoryLocation,
	trunk: string | null,
	config: DiscernConfig,
	names: readonly string[],
): Promise<Measurement> {
	const execution = await executePlan(ctx, repository, trunk, planStandards(config, names));
	const read = readingsOf(execution.report.runs, config);
	const readings = names.map(
		(name): Reading =>
			read.find((reading) => reading.name === name) ?? {
				name,
				verdict: "unmeasured",
				value: null,
				limit: config.standards[name]?.limit ?? 0,
				problem: "its command did not finish (it timed out or was cancelled)",
			},
	);
	const diagnostics = [...execution.diagnostics, ...standardDiagnostics(read, config)];
	return { execution, readings, diagnostics, failed: readings.some(failing) };
}

const MAX_DECIMALS = 4;

const decimals = (value: number): number => {
	const text = String(value);
	const point = text.indexOf(".");
	return point < 0 || /e/i.test(text) ? 0 : text.length - point - 1;
};

/**
 * The limit a pin sets for a measured value: measured ∓ margin (a floor
 * below, a ceiling above), rounded toward the measured value's safe side so
 * that the measurement itself still holds; null when that is no stricter
 * than the current limit (the gain is within the margin).
 */
export function tightenedLimit(standard: DiscernConfig["standards"][string], value: number): number | null {
	const places = Math.min(MAX_DECIMALS, Math.max(decimals(value), decimals(standard.margin), decimals(standard.limit)));
	const scale = 10 ** places;
	const raw = standard.direction === "up" ? value - standard.margin : value + standard.margin;
	// A tiny epsilon keeps 91.2 from reading as 91.19999… before it is rounded.
	const rounded = standard.direction === "up" ? Math.floor(raw * scale + 1e-7) / scale : Math.ceil(raw * scale - 1e-7) / scale;
	const stricter = standard.direction === "up" ? rounded > standard.limit : rounded < standard.limit;
	return stricter ? rounded : null;
}
