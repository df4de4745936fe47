import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { diagnosticLines, joinLines, planLines, readingLines, stepLines } from "../../render/result-lines.ts";
import type { StandardsData } from "./schema.ts";

/**
 * Standards for a person: each measurement's step, each reading against its
 * limit (with the limit a pin would set), what a pin changed, the plan of a
 * dry run, then each failure with the command that reproduces it.
 */
export function renderStandards(result: Result<"standards" | "standards pin", StandardsData>, options: RenderOptions): string {
	const data = result.data;
	const readings = (data?.standards ?? []).map((reading) => ({
		...reading,
		verdict: reading.proposed === undefined ? reading.verdict : `${reading.verdict}; a pin sets ${reading.proposed}`,
	}));
	const pinned = (data?.standards ?? [])
		.filter((reading) => data?.pinned?.includes(reading.name))
		.map((reading) => `  standards.${reading.name}.limit: ${reading.limit} → ${reading.proposed}`);
	return joinLines([
		...stepLines(result, options),
		...readingLines(readings, options.color),
		...(pinned.length > 0 ? ["", `Pinned${data?.commit ? ` in ${data.commit.slice(0, 7)}` : ""}:`, ...pinned] : []),
		...(data?.proof ? ["", data.proof] : []),
		...planLines(result, options.color),
		...diagnosticLines(result, options),
	]);
}
