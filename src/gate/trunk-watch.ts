import { git } from "../git/run.ts";

/**
 * What names the trunk, as git stores it: the trunk branch's commit (and
 * whether it is a symbolic ref) and where origin/HEAD points. A job that
 * rewrote any of them mid-run (`git update-ref refs/heads/main …`) would
 * change what the next gate is judged against; `done` compares this before
 * and after every phase, as it does HEAD. Null when nothing names a trunk.
 */
export async function readTrunkRefs(root: string, trunk: string | null): Promise<string | null> {
	if (trunk === null) return null;
	const refs = await git(["for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)", `refs/heads/${trunk}`, "refs/remotes/origin/HEAD"], root);
	return refs.exitCode === 0 ? refs.stdout : `unreadable (${refs.exitCode})`;
}
