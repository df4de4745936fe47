import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import type { RepositoryLocation } from "../../git/repository.ts";
import { type Locked, takeLock } from "../../state/verb-lock.ts";
import { nearest } from "../../text/suggest.ts";
import type { FleetWorktree } from "../../worktree/fleet.ts";

/**
 * The worktrees a name could mean: by task id, by branch, or by path
 * (relative to where discern runs; symlinks resolved); when nothing is named
 * so exactly, every worktree whose id or branch starts with it (ids are long).
 * Matched against the listed worktrees only: the name itself never reaches
 * git or a shell. More than one (the id of one, the branch of another, two
 * sharing a prefix) is ambiguous: the caller refuses and lists them.
 */
export async function findTargets(fleet: readonly FleetWorktree[], name: string, cwd: string): Promise<FleetWorktree[]> {
	const found = new Set<FleetWorktree>(fleet.filter((worktree) => worktree.id === name || worktree.branch === name));
	const asPath = resolve(cwd, name);
	const real = await realpath(asPath).catch(() => null);
	for (const worktree of fleet) {
		if (resolve(worktree.path) === asPath) found.add(worktree);
		else if (real && (await realpath(worktree.path).catch(() => null)) === real) found.add(worktree);
	}
	if (found.size > 0 || name === "") return [...found];
	return fleet.filter((worktree) => !worktree.main && (worktree.id?.startsWith(name) || worktree.branch?.startsWith(name)));
}

/** The one worktree a name means, or undefined when none or several do. */
export async function findTarget(fleet: readonly FleetWorktree[], name: string, cwd: string): Promise<FleetWorktree | undefined> {
	const found = await findTargets(fleet, name, cwd);
	return found.length === 1 ? found[0] : undefined;
}

/** Names a person may have meant: those starting with what they typed first (a prefix), else the nearest by edit distance. */
export function didYouMean(typed: string, names: readonly string[]): string[] {
	const prefixed = names.filter((name) => name.startsWith(typed));
	if (prefixed.length > 0) return [...new Set(prefixed)].slice(0, 3);
	const near = nearest(typed, names);
	return near ? [near] : [];
}

/** Other worktrees that have this branch checked out: deleting it would leave them on a missing branch. */
export function checkedOutElsewhere(fleet: readonly FleetWorktree[], target: FleetWorktree): FleetWorktree[] {
	return target.branch === null ? [] : fleet.filter((worktree) => worktree !== target && worktree.branch === target.branch);
}

/** The names a person could have meant, for a did-you-mean. */
export function knownNames(fleet: readonly FleetWorktree[]): string[] {
	return fleet.filter((worktree) => !worktree.main).flatMap((worktree) => [worktree.id, worktree.branch].filter((name): name is string => name !== null));
}

/** Hold the target worktree's own checkout lock while it is removed: a gate running there keeps it. */
export function lockTarget(repository: RepositoryLocation, worktree: FleetWorktree, verb: string): Locked | null {
	if (!worktree.gitDir) return null;
	return takeLock("checkout", { root: worktree.path, gitDir: worktree.gitDir, commonDir: repository.commonDir, location: "worktree" }, verb);
}

/** `refs/discern/recovery/<branch>-<UTC time>`: where a tip is saved before its worktree goes. */
export function recoveryRef(branch: string | null, now: Date, suffix = ""): string {
	const stamp = now
		.toISOString()
		.replace(/[-:]/g, "")
		.replace(/\.\d+Z$/, "Z");
	return `refs/discern/recovery/${branch ?? "detached"}-${stamp}${suffix}`;
}
