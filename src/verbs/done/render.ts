import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import type { DoneData } from "../../proof/done-schema.ts";
import { diagnosticLines, joinLines, planLines, readingLines, stepLines } from "../../render/result-lines.ts";
import { paint } from "../../render/style.ts";

/**
 * A gate run for a person: each step with its outcome, the standards'
 * readings, a dry run's plan, then for each failure the command to
 * reproduce it and the end of its output, then the Proof line (a failure's
 * sentence is printed by the CLI with its error code).
 */
export function renderDone(result: Result<"done", DoneData>, options: RenderOptions): string {
	const { color } = options;
	const lines = [
		...stepLines(result, options),
		...readingLines(result.data?.standards ?? [], color),
		...planLines(result, color),
		...diagnosticLines(result, options),
	];
	if (result.ok && !result.dry_run) lines.push("", result.data?.proof ? paint(result.message, "bold", color) : result.message);
	return joinLines(lines);
}
