import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { diagnosticLines, joinLines, planLines, stepLines } from "../../render/result-lines.ts";
import type { StartData } from "./schema.ts";

/** A start for a person: the steps that ran, a dry run's plan, a failure's diagnostics, then where to work. */
export function renderStart(result: Result<"start", StartData>, options: RenderOptions): string {
	const lines = [...stepLines(result, options), ...planLines(result, options.color), ...diagnosticLines(result, options)];
	const data = result.data;
	if (result.ok && !result.dry_run && data)
		lines.push("", `  id      ${data.id}`, `  branch  ${data.branch}`, `  path    ${data.path}`, `  port    ${data.port}`);
	return joinLines(lines);
}
