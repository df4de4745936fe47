import type { DiscernConfig } from "../config/schema.ts";
import type { Trunk } from "../git/trunk.ts";
import { steeringPhrase } from "../scopes/steering.ts";
import type { ResolvedTrunk } from "../trunk/resolve.ts";
import { gateChanges } from "./gate-changes.ts";
import type { Judgement } from "./record.ts";
import type { ScopesTouched } from "./scopes-touched.ts";

/**
 * What a Proof is judged against besides the tree (see `Judgement` in
 * state.ts), built in one place: `done` records it, and a pin that carries
 * a Proof to its commit must rebuild it exactly as `done` would.
 */
export function judgementOf(
	trunk: Trunk,
	branch: string,
	scopes: Pick<ScopesTouched, "touched" | "allBecause" | "steering">,
	authority: Pick<ResolvedTrunk, "config">,
	config: DiscernConfig,
): Judgement {
	// Compared with itself, never-loosen proves nothing: the branch is its own trunk here.
	const trunkConfig = trunk.name !== branch ? authority.config : null;
	return {
		trunk: { name: trunk.name, sha: trunk.sha ?? null },
		scopes_changed: scopes.touched,
		all_scopes_because: scopes.allBecause,
		never_loosen: trunkConfig ? "checked" : "skipped",
		// The changed files that steer agents, a phrase each: the Proof line relayed to the owner names them, since
		// passing jobs says nothing of what the next agent is told. discern.toml is left to `gateChanges`, key by key.
		gate_changes: [
			...(trunkConfig ? gateChanges(trunkConfig, config) : []),
			...scopes.steering.filter((entry) => entry.path !== "discern.toml").map((entry) => steeringPhrase(entry.path, entry.change)),
		],
	};
}
