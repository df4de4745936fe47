import { parseConfig } from "../config/load.ts";
import type { DiscernConfig } from "../config/schema.ts";
import type { ObjectReader } from "../git/object-reader.ts";
import { type BranchClues, decideTrunk, readBranchClues, readInitDefault, type Trunk } from "../git/trunk.ts";
import { clip } from "../text/clip.ts";
import { readCommittedConfig } from "./committed-config.ts";

/**
 * The trunk a gate decision compares against, named by something the
 * branch under test cannot edit: DISCERN_TRUNK, or what git itself says
 * (origin/HEAD, init.defaultBranch, main/master) corrected by that branch's
 * own committed `[repository].trunk`. A branch's discern.toml is the thing
 * being judged, so it may not choose its judge; it is used only when nothing
 * else names a trunk, and the result says so.
 */
export interface TrunkAuthority {
	trunk: Trunk;
	/** The trunk's committed discern.toml, when it can be read. */
	config: DiscernConfig | null;
	/** Why the trunk's config could not be read (the never-loosen check is then skipped, loudly). */
	unreadable?: string;
	/** True when the trunk commits a discern.toml that does not validate: its standards cannot be compared, whatever the branch declares. */
	invalid?: boolean;
	/** Set when git could not read the trunk's commit or its discern.toml: nothing may be judged against it. */
	failed?: string;
	/** True when only the branch's own config named the trunk. */
	namedByBranch: boolean;
}

export async function trunkAuthority(
	root: string,
	branchConfig: DiscernConfig,
	fromEnv: string | undefined,
	branches: Promise<BranchClues> = readBranchClues(root),
	initDefault: Promise<string | null> = readInitDefault(root),
	reader?: ObjectReader,
): Promise<TrunkAuthority> {
	// Both reads at once (a caller may have started them already): each git call is a process start, and done pays for every one.
	const [clues, init] = await Promise.all([branches, initDefault]);
	let trunk = decideTrunk({ ...clues, initDefault: init }, undefined, fromEnv);
	let namedByBranch = false;
	let committed = trunk.exists ? await committedConfig(root, trunk, reader) : null;

	// The candidate's own committed config may name a different trunk (a `develop` project with a `main` branch).
	const named = committed?.config?.repository.trunk;
	if (!fromEnv && named && named !== trunk.name) {
		const moved = decideTrunk({ ...clues, initDefault: null }, named, undefined);
		if (moved.exists) {
			trunk = moved;
			committed = await committedConfig(root, moved, reader);
		}
	}
	// Nothing independent names a trunk (or it has no discern.toml yet): fall back to the branch's word.
	// Never because git failed to read the trunk's: that is not a trunk without one.
	const branchNamed = branchConfig.repository.trunk;
	if (!fromEnv && branchNamed && !committed?.failed && (!trunk.exists || !committed?.config) && branchNamed !== trunk.name) {
		trunk = decideTrunk({ ...clues, initDefault: null }, branchNamed, undefined);
		committed = trunk.exists ? await committedConfig(root, trunk, reader) : null;
		namedByBranch = true;
	}
	if (committed?.config) return { trunk, config: committed.config, namedByBranch };
	return {
		trunk,
		config: null,
		unreadable: committed?.reason ?? "there is no trunk branch to compare with",
		namedByBranch,
		...(committed?.invalid ? { invalid: true } : {}),
		...(committed?.failed ? { failed: committed.reason } : {}),
	};
}

/**
 * The trunk's discern.toml at the commit the branch list named (never by the
 * branch's name: a ref moved since, by a job or anyone, would have the judgement
 * compare with another commit than the one it records).
 */
async function committedConfig(
	root: string,
	trunk: Trunk,
	reader: ObjectReader | undefined,
): Promise<{ config: DiscernConfig | null; reason?: string; invalid?: boolean; failed?: boolean }> {
	const branch = trunk.name ?? "";
	if (!trunk.sha) return { config: null, reason: `the trunk \`${clip(branch)}\` has no commit` };
	const read = await readCommittedConfig(root, trunk.sha, reader);
	if (read.state === "unreadable") return { config: null, reason: `${read.reason} (the trunk \`${clip(branch)}\`)`, failed: true };
	if (read.state === "absent") return { config: null, reason: `the trunk \`${clip(branch)}\` has no committed discern.toml` };
	const parsed = parseConfig(read.text);
	return parsed.ok
		? { config: parsed.config }
		: { config: null, reason: `the trunk \`${clip(branch)}\`'s committed discern.toml does not validate`, invalid: true };
}
