import type { RefReading } from "../git/evidence/look-reads.ts";
import { git } from "../git/run.ts";
import { type BranchClues, originHeadBranch } from "../git/trunk.ts";

/**
 * What names the trunk, as git stores it: the trunk branch's commit, whether
 * it is a symbolic ref, and the branch origin/HEAD points at. A job that
 * rewrote any of them mid-run (`git update-ref refs/heads/main …`) would
 * change what the next gate is judged against; `done` compares this before
 * and after every phase, as it does HEAD. Null when nothing names a trunk.
 *
 * The first reading comes from the branch list read before any job started
 * (`trunkWatchOf`), the later ones from the look's own listing of the refs
 * (`trunkWatchFrom`: HEAD and these in one git process) or from git alone
 * (`readTrunkRefs`): all are put in the same words, so that they compare.
 */
export async function readTrunkRefs(root: string, trunk: string | null): Promise<string | null> {
	if (trunk === null) return null;
	const refs = await git(["for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)", ...watchedRefs(trunk)], root);
	if (refs.exitCode !== 0) return `unreadable (${refs.exitCode})`;
	return trunkWatchFrom(
		refs.stdout.split("\n").map((line) => {
			const [ref = "", object = "", symref = ""] = line.split("\0");
			return { ref, object, symref };
		}),
		trunk,
	);
}

/** The refs the watch reads: the trunk branch and origin/HEAD (none without a trunk). */
export function watchedRefs(trunk: string | null): string[] {
	return trunk === null ? [] : [`refs/heads/${trunk}`, "refs/remotes/origin/HEAD"];
}

/** The same words, from the refs a look listed (`EvidenceIndex.status`); null refs: git could not list them. */
export function trunkWatchFrom(refs: readonly RefReading[] | null, trunk: string | null): string | null {
	if (trunk === null) return null;
	if (refs === null) return "unreadable";
	let sha: string | null = null;
	let symbolic = false;
	let originHead: string | null = null;
	for (const { ref, object, symref } of refs) {
		if (ref === `refs/heads/${trunk}`) {
			sha = object || null;
			symbolic = Boolean(symref);
		} else if (ref === "refs/remotes/origin/HEAD") {
			originHead = originHeadBranch(symref);
		}
	}
	return watchLine(sha, symbolic, originHead);
}

/** The same words, from a branch list already read (`readBranchClues`). */
export function trunkWatchOf(clues: BranchClues, trunk: string | null): string | null {
	if (trunk === null) return null;
	return watchLine(clues.localBranches.get(trunk) || null, clues.symbolic.has(trunk), clues.originHead);
}

function watchLine(sha: string | null, symbolic: boolean, originHead: string | null): string {
	return `trunk ${sha ?? "absent"}${symbolic ? " (symbolic)" : ""}; origin/HEAD → ${originHead ?? "none"}`;
}
