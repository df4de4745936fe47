import { git } from "./run.ts";

export const TRUNK_SOURCES = ["env", "config", "origin_head", "init_default", "existing_branch", "none"] as const;
export type TrunkSource = (typeof TRUNK_SOURCES)[number];

export interface Trunk {
	name: string | null;
	source: TrunkSource;
	/** Whether `refs/heads/<name>` exists. */
	exists: boolean;
	/** The trunk's commit when it exists (lets callers skip a rev-list when HEAD is the trunk). */
	sha?: string;
}

/** What git itself can tell about the trunk. */
export interface TrunkClues {
	/** Local branch name → its commit. */
	localBranches: Map<string, string>;
	originHead: string | null;
	initDefault: string | null;
}

export type BranchClues = Omit<TrunkClues, "initDefault"> & {
	/** Local branches that are symbolic refs to another ref (never a trunk of their own). */
	symbolic: Set<string>;
	/** False when git could not list the branches: then no branch is known, which is not the same as none existing. */
	readable: boolean;
};

/** Local branches and where origin/HEAD points, in one git call. */
export async function readBranchClues(cwd: string): Promise<BranchClues> {
	// Names only: no %(tree), which would have git parse each commit object (the Proof's tree comes from the commit read back and hashed).
	const refs = await git(["for-each-ref", "--format=%(refname)%00%(symref)%00%(objectname)", "refs/heads/", "refs/remotes/origin/HEAD"], cwd);
	const localBranches = new Map<string, string>();
	const symbolic = new Set<string>();
	let originHead: string | null = null;
	for (const line of refs.exitCode === 0 ? refs.stdout.split("\n") : []) {
		const [ref, symref, sha] = line.split("\0");
		if (!ref) continue;
		if (ref.startsWith("refs/heads/")) {
			localBranches.set(ref.slice("refs/heads/".length), sha ?? "");
			if (symref) symbolic.add(ref.slice("refs/heads/".length));
		} else if (ref === "refs/remotes/origin/HEAD") originHead = originHeadBranch(symref);
	}
	// git skips a ref it cannot read with a warning and still exits 0: anything on stderr means the list may be short.
	return { localBranches, originHead, symbolic, readable: refs.exitCode === 0 && refs.stderr.trim() === "" };
}

/** The branch a symbolic origin/HEAD points at (`refs/remotes/origin/<branch>`), or null. */
export function originHeadBranch(symref: string | undefined): string | null {
	return symref?.startsWith("refs/remotes/origin/") ? symref.slice("refs/remotes/origin/".length) : null;
}

/** `init.defaultBranch`, or null. Callers that will likely need it start it early, beside other reads. */
export async function readInitDefault(cwd: string): Promise<string | null> {
	const result = await git(["config", "--get", "init.defaultBranch"], cwd);
	return result.exitCode === 0 ? result.stdout.trim() || null : null;
}

/** The branch `name` as a trunk named by `source`: whether it exists, and its commit. */
export function trunkNamed(clues: Pick<TrunkClues, "localBranches">, name: string, source: TrunkSource): Trunk {
	const sha = clues.localBranches.get(name);
	return sha ? { name, source, exists: true, sha } : { name, source, exists: false };
}

/**
 * What git's own clues name, in order: `origin/HEAD`, then
 * `init.defaultBranch` when it exists, then an existing `main` or `master`,
 * then `init.defaultBranch` even when it does not exist yet. Only
 * src/trunk/resolve.ts asks, after `DISCERN_TRUNK` and the committed
 * `[repository].trunk` had their say.
 */
export function decideTrunk(clues: TrunkClues): Trunk {
	const pick = (name: string, source: TrunkSource): Trunk => trunkNamed(clues, name, source);
	if (clues.originHead) return pick(clues.originHead, "origin_head");
	if (clues.initDefault && clues.localBranches.has(clues.initDefault)) return pick(clues.initDefault, "init_default");
	for (const name of ["main", "master"]) if (clues.localBranches.has(name)) return pick(name, "existing_branch");
	if (clues.initDefault) return pick(clues.initDefault, "init_default");
	return { name: null, source: "none", exists: false };
}
