import { parseConfig } from "../config/load.ts";
import type { DiscernConfig } from "../config/schema.ts";
import { git } from "../git/run.ts";
import type { StandardDefinition } from "./verdict.ts";

/** What defines a standard: changing any of these on a branch is loosening it by other means. */
const DEFINITION_KEYS = ["run", "direction", "metric", "per", "scale"] as const;

export type TrunkStandards = { readable: true; standards: DiscernConfig["standards"] } | { readable: false; reason: string };

/** The standards as committed on the trunk: the only copy a branch cannot edit for itself. */
export async function trunkStandards(root: string, trunkRef: string | null): Promise<TrunkStandards> {
	if (!trunkRef) return { readable: false, reason: "there is no trunk branch to compare with" };
	const shown = await git(["show", `${trunkRef}:discern.toml`], root);
	if (shown.exitCode !== 0) return { readable: false, reason: `\`git show ${trunkRef}:discern.toml\` failed: ${shown.stderr.trim().split("\n")[0] ?? ""}` };
	const parsed = parseConfig(shown.stdout);
	if (!parsed.ok) return { readable: false, reason: "the trunk's discern.toml does not validate" };
	return { readable: true, standards: parsed.config.standards };
}

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
