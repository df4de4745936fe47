import type { DiscernConfig } from "../config/schema.ts";
import type { TreeChange } from "../git/tree-diff.ts";
import type { Trunk } from "../git/trunk.ts";
import { steeringPhrase, steersAgents } from "../scopes/steering.ts";
import { gateChanges } from "./gate-changes.ts";
import type { Judgement } from "./record.ts";
import type { TrunkAuthority } from "./trunk-authority.ts";

/**
 * What a Proof is judged against besides the tree (see `Judgement` in
 * state.ts), built in one place: `done` records it, and a pin that carries
 * a Proof to its commit must rebuild it exactly as `done` would.
 */
export function judgementOf(
	trunk: Trunk,
	branch: string,
	scopes: { touched: string[]; allBecause: string | null; changes: readonly TreeChange[] | null },
	authority: Pick<TrunkAuthority, "config">,
	config: DiscernConfig,
): Judgement {
	// Compared with itself, never-loosen proves nothing: the branch is its own trunk here.
	const trunkConfig = trunk.name !== branch ? authority.config : null;
	return {
		trunk: { name: trunk.name, sha: trunk.sha ?? null },
		scopes_changed: scopes.touched,
		all_scopes_because: scopes.allBecause,
		never_loosen: trunkConfig ? "checked" : "skipped",
		gate_changes: [...(trunkConfig ? gateChanges(trunkConfig, config) : []), ...steeringChanges(scopes.changes, [authority.config, config])],
	};
}

/**
 * The changed files that steer agents (scopes/steering.ts), a phrase each:
 * the Proof line relayed to the owner names them, since passing jobs says
 * nothing of what the next agent will be told. discern.toml is left to
 * `gateChanges`, which says key by key what its change does.
 */
function steeringChanges(changes: readonly TreeChange[] | null, configs: readonly (DiscernConfig | null)[]): string[] {
	if (!changes) return [];
	const sources = configs.flatMap((config) => config?.instructions.sources ?? []);
	return changes
		.filter((change) => change.path !== "discern.toml" && steersAgents(change.path, sources) !== null)
		.map((change) => steeringPhrase(change.path, change.from === null ? "added" : change.to === null ? "deleted" : "modified"));
}
