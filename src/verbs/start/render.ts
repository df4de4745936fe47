import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { diagnosticLines, joinLines, planLines, stepLines } from "../../render/result-lines.ts";
import { quoteName } from "../../text/terminal.ts";
import type { StartData } from "./schema.ts";

/** A start for a person: the steps that ran (and why a seed was skipped), a dry run's plan, a failure's diagnostics, then where to work. */
export function renderStart(result: Result<"start", StartData>, options: RenderOptions): string {
	const data = result.data;
	// Why a seed was skipped, under the steps: a step line says only "skipped".
	const seeds = (data?.seeds ?? []).filter((seed) => seed.why).map((seed) => `  seed ${quoteName(seed.path)}: ${seed.why}`);
	const lines = [...stepLines(result, options), ...seeds, ...planLines(result, options.color), ...diagnosticLines(result, options)];
	if (result.ok && !result.dry_run && data)
		lines.push("", `  id      ${data.id}`, `  branch  ${data.branch}`, `  path    ${data.path}`, `  port    ${data.port}`);
	return joinLines(lines);
}
