import { clip } from "../text/clip.ts";
/** A branch whose committed discern.toml names `names` as the trunk. */
export interface TrunkVote {
	branch: string;
	names: string;
}

/** A branch that something names as the trunk, and what names it. */
export interface TrunkCandidate {
	branch: string;
	/** Every source naming it, in words: "DISCERN_TRUNK", "origin/HEAD", … */
	namedBy: string[];
}

export interface CandidateSources {
	/** The trunk resolve.ts chose. */
	trunk: string | null;
	/** What each committed discern.toml it read names. */
	votes: TrunkVote[];
	originHead: string | null;
	initDefault: string | null;
	/** This checkout's `[repository].trunk`. */
	configured: string | undefined;
	fromEnv: string | undefined;
}

/**
 * Every branch anything names as the trunk: the one resolve.ts chose, and
 * every source it weighed whether it won or not — DISCERN_TRUNK, this
 * checkout's `[repository].trunk`, each committed discern.toml, origin/HEAD,
 * init.defaultBranch, and the names `main` and `master`. A verb that makes
 * a commit refuses on each of them: the trunk is decided from files an agent
 * can write (origin/HEAD, .git/config, a branch's discern.toml), and a decoy
 * that wins the decision must not make the real trunk a branch to commit on.
 */
export function trunkCandidates(sources: CandidateSources): TrunkCandidate[] {
	const found = new Map<string, string[]>();
	const add = (branch: string | null | undefined, by: string) => {
		if (!branch) return;
		const known = found.get(branch) ?? [];
		if (!known.includes(by)) known.push(by);
		found.set(branch, known);
	};
	add(sources.trunk, "discern's trunk");
	add(sources.fromEnv, "DISCERN_TRUNK");
	add(sources.configured, "this checkout's [repository].trunk");
	for (const vote of sources.votes) add(vote.names, `the discern.toml committed on \`${vote.branch}\``);
	add(sources.originHead, "origin/HEAD");
	add(sources.initDefault, "init.defaultBranch");
	add("main", "its name");
	add("master", "its name");
	return [...found].map(([branch, namedBy]) => ({ branch, namedBy }));
}

/** The candidate `branch` is, if any: a verb that commits refuses there, naming what named it. */
export function candidateNamed(candidates: readonly TrunkCandidate[], branch: string): TrunkCandidate | null {
	return candidates.find((candidate) => candidate.branch === branch) ?? null;
}

/** The votes against the trunk discern took, as messages print them: `decoy`'s names `decoy`, … */
export function contestedVotes(contested: readonly TrunkVote[]): string {
	return contested.map((vote) => `\`${clip(vote.branch)}\`'s names \`${clip(vote.names)}\``).join(", ");
}
