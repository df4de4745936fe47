import type { DiscernConfig } from "../config/schema.ts";
import type { StandardDefinition } from "./verdict.ts";

/** What defines a standard: changing any of these on a branch is loosening it by other means. */
export const DEFINITION_KEYS = ["run", "direction", "metric", "per", "scale"] as const;

/** One way a branch loosens a standard of the trunk: which field, and what it was and is (null: absent). */
export interface Loosening {
	standard: string;
	/** `limit`, a definition key, or `standard` for a deleted one. */
	field: "limit" | "standard" | (typeof DEFINITION_KEYS)[number];
	before: string | null;
	after: string | null;
	/** One sentence naming it, old → new. */
	text: string;
}

const shown = (value: unknown): string | null => (value === undefined ? null : typeof value === "string" ? JSON.stringify(value) : String(value));

/**
 * Every way this branch loosens the trunk's standards: a lower floor, a
 * higher ceiling, a changed definition (each field, old → new), a deleted
 * standard. New standards are welcome. `done` and `standards` share it.
 */
export function loosenings(trunk: DiscernConfig["standards"], branch: DiscernConfig["standards"]): Loosening[] {
	const found: Loosening[] = [];
	for (const [name, before] of Object.entries(trunk)) {
		const after = branch[name];
		if (!after) {
			found.push({ standard: name, field: "standard", before: "declared", after: null, text: `standard \`${name}\` was deleted` });
			continue;
		}
		for (const key of DEFINITION_KEYS) {
			const old = (before as StandardDefinition)[key];
			const now = (after as StandardDefinition)[key];
			if (old === now) continue;
			const [was, is] = [shown(old), shown(now)];
			found.push({
				standard: name,
				field: key,
				before: was,
				after: is,
				text: `standard \`${name}\` changed its definition: ${key} ${was ?? "(unset)"} → ${is ?? "(unset)"}`,
			});
		}
		// A flipped direction is a changed definition already; the bound is compared only within one direction.
		if (before.direction !== after.direction) continue;
		if (before.direction === "up" && after.limit < before.limit) {
			found.push({
				standard: name,
				field: "limit",
				before: String(before.limit),
				after: String(after.limit),
				text: `standard \`${name}\` lowered its floor: limit ${before.limit} → ${after.limit}`,
			});
		} else if (before.direction === "down" && after.limit > before.limit) {
			found.push({
				standard: name,
				field: "limit",
				before: String(before.limit),
				after: String(after.limit),
				text: `standard \`${name}\` raised its ceiling: limit ${before.limit} → ${after.limit}`,
			});
		}
	}
	return found;
}
