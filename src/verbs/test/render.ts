import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import type { InnerLoopData } from "../../jobs/schema.ts";
import { diagnosticLines, joinLines, planLines, stepLines } from "../../render/result-lines.ts";

/** Each step with its outcome, a dry run's plan, each failure's reproduce command and output, then the summary. */
export function renderTest(result: Result<"test", InnerLoopData>, options: RenderOptions): string {
	const lines = [...stepLines(result, options.color), ...planLines(result, options.color), ...diagnosticLines(result, options)];
	if (result.ok && !result.dry_run) lines.push("", result.message);
	return joinLines(lines);
}
