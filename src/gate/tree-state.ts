import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { git } from "../git/run.ts";
import { parsePorcelainV2 } from "../git/status.ts";

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

export async function snapshotTree(root: string): Promise<TreeSnapshot> {
	const result = await git(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"], root);
	if (result.exitCode !== 0) return { head: null, branch: null, entries: new Map(), readable: false };
	const state = parsePorcelainV2(result.stdout);
	const entries = new Map<string, string>();
	await Promise.all(
		state.changes.map(async (change) => {
			const stat = await lstat(join(root, change.path)).catch(() => null);
			const content = stat ? `${stat.size}:${stat.mtimeMs}:${stat.ino}` : "absent";
			entries.set(change.path, `${change.kind}|${change.staged}|${content}`);
		}),
	);
	return { head: state.head, branch: state.branch, entries, readable: true };
}

/** A snapshot of a clean tree at `head`, without asking git (the caller just checked). */
export function cleanSnapshot(head: string | null, branch: string | null): TreeSnapshot {
	return { head, branch, entries: new Map(), readable: true };
}

/** Paths whose state differs between two snapshots, sorted. */
export function pathsChanged(before: TreeSnapshot, after: TreeSnapshot): string[] {
	if (!before.readable || !after.readable) return ["(git could not report the working tree)"];
	const paths = new Set([...before.entries.keys(), ...after.entries.keys()]);
	return [...paths].filter((path) => before.entries.get(path) !== after.entries.get(path)).sort();
}
