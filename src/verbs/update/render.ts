import type { RenderOptions } from "../../contract/verb.ts";
import { diagnosticLines, joinLines, planLines, stepLines } from "../../render/result-lines.ts";
import type { UpdateResult } from "./schema.ts";

/** What came in, what overlaps, and the ensure steps that ran. */
export function renderUpdate(result: UpdateResult, options: RenderOptions): string {
	const data = result.data;
	const lines = [...stepLines(result, options), ...planLines(result, options.color), ...diagnosticLines(result, options)];
	if (data && data.commits_total > 0) {
		lines.push(`Commits (${data.commits_total}):`, ...data.commits.map((commit) => `  ${commit.sha.slice(0, 7)} ${commit.subject}`));
		if (data.commits_total > data.commits.length) lines.push(`  … and ${data.commits_total - data.commits.length} more`);
	}
	if (data && data.files_total > 0) lines.push(`Files (${data.files_total}): ${data.files.join(", ")}${data.files_total > data.files.length ? ", …" : ""}`);
	if (data && data.overlap.length > 0) lines.push(`Changed here too, re-read: ${data.overlap.join(", ")}`);
	if (data && data.conflicts.length > 0) lines.push(`Conflicts: ${data.conflicts.join(", ")}`);
	return joinLines(lines);
}
