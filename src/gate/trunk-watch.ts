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
 * (`trunkWatchOf`), the later ones from git (`readTrunkRefs`): both are put
 * in the same words, so that they compare.
 */
export async function readTrunkRefs(root: string, trunk: string | null): Promise<string | null> {
	if (trunk === null) return null;
	const refs = await git(["for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)", `refs/heads/${trunk}`, "refs/remotes/origin/HEAD"], root);
	if (refs.exitCode !== 0) return `unreadable (${refs.exitCode})`;
	let sha: string | null = null;
	let symbolic = false;
	let originHead: string | null = null;
	for (const line of refs.stdout.split("\n")) {
		const [ref, object, symref] = line.split("\0");
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
