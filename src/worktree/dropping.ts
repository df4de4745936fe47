import { basename } from "node:path";
import { isRecord } from "../contract/record.ts";
import { sealHolds, sealOf } from "../proof/seal.ts";
import { readStateFile, removeStateFile, writeStateFile } from "../state/dir.ts";

/**
 * A mark that a worktree's removal (`git worktree remove`) started, in the
 * shared git dir (`<commonDir>/discern/dropping/<admin dir name>.json`),
 * written right before git deletes the folder and cleared once it is gone.
 * git deletes the folder first (its `.git` file among the first) and its
 * admin dir last: a removal stopped halfway leaves a folder git can no
 * longer remove (`validation failed`) nor prune (the folder is there). The
 * mark is what tells a later drop that this folder was being dropped, its
 * work judged and saved, so it may finish: without it, a folder whose `.git`
 * file is missing is never deleted. Sealed as a Proof is (proof/seal.ts):
 * an admin dir an agent rewrote to name another folder has no mark for it.
 */
/** Under `<commonDir>/discern/`, reached through no link (state/dir.ts). */
function markFile(admin: string): string {
	return `dropping/${basename(admin)}.json`;
}

function sealed(admin: string, path: string): string {
	return `worktree-dropping\n${admin}\n${path}`;
}

/** Mark the removal of the worktree at `path` (admin dir `admin`) as started. Throws when it cannot be written. */
export async function markDropping(commonDir: string, admin: string, path: string): Promise<void> {
	const seal = await sealOf(commonDir, sealed(admin, path), { create: true });
	await writeStateFile(commonDir, markFile(admin), `${JSON.stringify({ admin, path, seal })}\n`);
}

/** Whether a sealed mark says the removal of the worktree at `path` (admin dir `admin`) started. */
export async function wasDropping(commonDir: string, admin: string, path: string): Promise<boolean> {
	const text = readStateFile(commonDir, markFile(admin));
	let raw: unknown;
	try {
		raw = text === null ? null : JSON.parse(text);
	} catch {
		return false;
	}
	if (!isRecord(raw) || raw.admin !== admin || raw.path !== path) return false;
	return sealHolds(commonDir, sealed(admin, path), raw.seal);
}

export async function clearDropping(commonDir: string, admin: string): Promise<void> {
	removeStateFile(commonDir, markFile(admin));
}
