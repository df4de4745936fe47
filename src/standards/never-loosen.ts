import type { DiscernConfig } from "../config/schema.ts";
import type { StandardDefinition } from "./verdict.ts";

/** What defines a standard: changing any of these on a branch is loosening it by other means. */
const DEFINITION_KEYS = ["run", "direction", "metric", "per", "scale"] as const;

/**
 * Every way this branch loosens the trunk's standards: a lower floor, a
 * higher ceiling, a changed definition, a deleted standard. New standards
 * are welcome.
 */
export function loosenings(trunk: DiscernConfig["standards"], branch: DiscernConfig["standards"]): string[] {
	const problems: string[] = [];
	for (const [name, before] of Object.entries(trunk)) {
		const after = branch[name];
		if (!after) {
			problems.push(`standard \`${name}\` was deleted`);
			continue;
		}
		const changed = DEFINITION_KEYS.filter((key) => (before as StandardDefinition)[key] !== (after as StandardDefinition)[key]);
		if (changed.length > 0) problems.push(`standard \`${name}\` changed its definition (${changed.join(", ")})`);
		else if (before.direction === "up" && after.limit < before.limit) problems.push(`standard \`${name}\` lowered its floor from ${before.limit} to ${after.limit}`);
		else if (before.direction === "down" && after.limit > before.limit) problems.push(`standard \`${name}\` raised its ceiling from ${before.limit} to ${after.limit}`);
	}
	return problems;
}
