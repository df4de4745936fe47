import type { DiscernConfig } from "../config/schema.ts";
import { withObjectReader } from "../git/object-reader.ts";
import { committedChanges } from "../git/tree-diff.ts";
import type { Trunk } from "../git/trunk.ts";
import { type ChangedPaths, NO_TRUNK_REASON } from "../scopes/changed.ts";
import { classify } from "../scopes/classify.ts";
import { compileScopes } from "../scopes/glob.ts";
import { noun } from "../text/plural.ts";
import { type SteeringChange, steeringPaths } from "./steering-changes.ts";

export interface ScopesTouched {
	touched: string[];
	/** Set when every scope counted as changed, and why (fail open). */
	allBecause: string | null;
	/** The committed changes that steer agents (proof/steering-changes.ts), when the changes could be read. */
	steering: { path: string; change: SteeringChange["change"] }[];
}

/**
 * The configured scopes this branch and tree touch. Every scope counts when
 * there is no branch diff to classify — the branch under test is the trunk
 * itself (by name, an override, or a clone whose origin/HEAD names it) —
 * or when git cannot list the changes: "could not tell" never reads as
 * "nothing changed here". Both sides are the commits the gate judges (the
 * trunk's from the branch list, `head` from the evidence), never names a job
 * could move meanwhile; the tree is the commit's (the evidence said so), so
 * only the committed changes are read.
 */
export async function scopesTouched(
	root: string,
	trunk: Trunk,
	branch: string,
	head: string,
	config: DiscernConfig,
	given: Parameters<typeof committedChanges>[3] & { trunkConfig?: DiscernConfig | null } = {},
): Promise<ScopesTouched> {
	if (trunk.name === branch) {
		const all = Object.keys(config.scopes);
		return {
			touched: all,
			allBecause: all.length > 0 ? `this branch is the trunk \`${branch}\` itself: there is no branch diff to classify` : null,
			steering: [],
		};
	}
	const changed = await committedPaths(root, trunk, head, given);
	// What steers agents, judged as accept's consent judges it: the trunk's and the branch's sources, imports followed.
	const sources = [given.trunkConfig, config].flatMap((each) => each?.instructions.sources ?? []);
	const { changes } = changed;
	const steering =
		changes && trunk.sha
			? (await withObjectReader(root, given.reader, (reader) => steeringPaths(reader, [trunk.sha as string, head], changes, sources))).map((entry) => ({
					path: entry.change.path,
					change: entry.kind,
				}))
			: [];
	if (Object.keys(config.scopes).length === 0) return { touched: [], allBecause: null, steering };
	const classified = classify(changed.paths, compileScopes(config.scopes), changed.complete, changed.submodules);
	const allBecause = !changed.complete
		? (changed.reason ?? "git could not list the branch's changes")
		: changed.submodules.length > 0
			? `the ${noun(changed.submodules.length, "submodule")} ${changed.submodules.map((path) => `\`${path}\``).join(", ")} changed, and any path inside may belong to any scope`
			: null;
	return { touched: classified.touched, allBecause, steering };
}

/** The branch's committed changes against the trunk, from hashed objects (git/tree-diff.ts), as the scope classifier takes them. */
async function committedPaths(
	root: string,
	trunk: Trunk,
	head: string,
	given: Parameters<typeof committedChanges>[3],
): Promise<ChangedPaths & { changes: Exclude<Awaited<ReturnType<typeof committedChanges>>, string> | null }> {
	if (!trunk.exists || !trunk.sha) return { paths: [], complete: false, reason: NO_TRUNK_REASON, submodules: [], changes: null };
	const changes = await committedChanges(root, trunk.sha, head, given);
	if (typeof changes === "string") return { paths: [], complete: false, reason: changes, submodules: [], changes: null };
	const submodules = changes.filter((change) => change.from === "160000" || change.to === "160000").map((change) => change.path);
	return { paths: changes.map((change) => change.path), complete: true, submodules, changes };
}
