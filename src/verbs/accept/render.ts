import type { RenderOptions } from "../../contract/verb.ts";
import { diagnosticLines, joinLines, planLines, stepLines } from "../../render/result-lines.ts";
import type { AcceptResult } from "./schema.ts";

/** A landing for a person: a gate run's steps and diagnostics when it ran, a dry run's plan, what is left after a partial one. */
export function renderAccept(result: AcceptResult, options: RenderOptions): string {
	const lines = [...stepLines(result, options), ...planLines(result, options.color), ...diagnosticLines(result, options)];
	const remaining = result.data?.remaining;
	if (remaining && remaining.length > 0) lines.push(`Left to do: ${remaining.join(", ")}`);
	return joinLines(lines);
}
