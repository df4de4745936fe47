import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { plainStatus } from "../git/repository.ts";
import type { WorkingState } from "../git/status.ts";

/**
 * What the working tree looks like to the gate: HEAD, and every changed or
 * untracked path with a signature of its current content (kind, staged,
 * size, mtime, inode). Two snapshots differ for a path when a job edited
 * it — including a file that was already dirty before the run.
 */
export interface TreeSnapshot {
	head: string | null;
	branch: string | null;
	entries: Map<string, string>;
	/** False when git could not answer: never treated as "unchanged". */
	readable: boolean;
}

/** What `prepare` and `test` compare (the files they edited); `done` reads its evidence index instead. */
export async function snapshotTree(root: string): Promise<TreeSnapshot> {
	return snapshotOf(root, await plainStatus(root).status());
}

/** The snapshot of a status already read (null: git could not answer). */
export async function snapshotOf(root: string, state: WorkingState | null): Promise<TreeSnapshot> {
	if (!state) return { head: null, branch: null, entries: new Map(), readable: false };
	const entries = new Map<string, string>();
	await Promise.all(
		state.changes.map(async (change) => {
			const stat = await lstat(join(root, change.path)).catch(() => null);
			// ctime too: a process can put an mtime back, never a ctime.
			const content = stat ? `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}:${stat.mode}` : "absent";
			entries.set(change.path, `${change.kind}|${change.staged}|${content}`);
		}),
	);
	return { head: state.head, branch: state.branch, entries, readable: true };
}

/**
 * What differs between two snapshots: each path whose state changed, sorted,
 * and HEAD, the branch or the detached state moving — a job that commits,
 * switches branch or detaches leaves a result that describes no one commit.
 */
export function pathsChanged(before: TreeSnapshot, after: TreeSnapshot): string[] {
	if (!before.readable || !after.readable) return ["(git could not report the working tree)"];
	const paths = new Set([...before.entries.keys(), ...after.entries.keys()]);
	const changed = [...paths].filter((path) => before.entries.get(path) !== after.entries.get(path)).sort();
	if (before.branch !== after.branch) changed.unshift(`(HEAD moved from ${describeHead(before)} to ${describeHead(after)})`);
	else if (before.head !== after.head) changed.unshift(`(HEAD moved from ${short(before.head)} to ${short(after.head)})`);
	return changed;
}

function describeHead(snapshot: TreeSnapshot): string {
	return snapshot.branch === null ? `detached ${short(snapshot.head)}` : `branch ${snapshot.branch}`;
}

const short = (sha: string | null) => (sha ? sha.slice(0, 7) : "no commit");
