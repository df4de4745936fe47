import { git } from "./run.ts";

export const TRUNK_SOURCES = ["env", "config", "origin_head", "init_default", "existing_branch", "none"] as const;
export type TrunkSource = (typeof TRUNK_SOURCES)[number];

export interface Trunk {
	name: string | null;
	source: TrunkSource;
	/** Whether `refs/heads/<name>` exists. */
	exists: boolean;
}

/** What git itself can tell about the trunk, read once and concurrently. */
export interface TrunkClues {
	localBranches: Set<string>;
	originHead: string | null;
	initDefault: string | null;
}

export async function readTrunkClues(root: string): Promise<TrunkClues> {
	const [refs, initDefault] = await Promise.all([
		git(["for-each-ref", "--format=%(refname)%00%(symref)", "refs/heads/", "refs/remotes/origin/HEAD"], root),
		git(["config", "--get", "init.defaultBranch"], root),
	]);
	const localBranches = new Set<string>();
	let originHead: string | null = null;
	for (const line of refs.exitCode === 0 ? refs.stdout.split("\n") : []) {
		const [ref, symref] = line.split("\0");
		if (!ref) continue;
		if (ref.startsWith("refs/heads/")) localBranches.add(ref.slice("refs/heads/".length));
		else if (ref === "refs/remotes/origin/HEAD" && symref?.startsWith("refs/remotes/origin/")) {
			originHead = symref.slice("refs/remotes/origin/".length);
		}
	}
	const init = initDefault.exitCode === 0 ? initDefault.stdout.trim() || null : null;
	return { localBranches, originHead, initDefault: init };
}

/**
 * The landing branch: `DISCERN_TRUNK`, then `[repository].trunk`, then
 * `origin/HEAD`, then `init.defaultBranch`, then an existing `main` or `master`.
 */
export function decideTrunk(clues: TrunkClues, configured: string | undefined, fromEnv: string | undefined): Trunk {
	const pick = (name: string, source: TrunkSource): Trunk => ({ name, source, exists: clues.localBranches.has(name) });
	if (fromEnv) return pick(fromEnv, "env");
	if (configured) return pick(configured, "config");
	if (clues.originHead) return pick(clues.originHead, "origin_head");
	if (clues.initDefault && clues.localBranches.has(clues.initDefault)) return pick(clues.initDefault, "init_default");
	for (const name of ["main", "master"]) if (clues.localBranches.has(name)) return pick(name, "existing_branch");
	if (clues.initDefault) return pick(clues.initDefault, "init_default");
	return { name: null, source: "none", exists: false };
}
