import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { takeLock, type Locked } from "../../gate/lock.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import type { FleetWorktree } from "../../worktree/fleet.ts";

/**
 * The worktree a person named: its task id, its branch, or its path
 * (relative to where discern runs; symlinks resolved). Matched against the
 * listed worktrees only: the name itself never reaches git or a shell.
 */
export async function findTarget(fleet: readonly FleetWorktree[], name: string, cwd: string): Promise<FleetWorktree | undefined> {
	const byName = fleet.find((worktree) => worktree.id === name) ?? fleet.find((worktree) => worktree.branch === name);
	if (byName) return byName;
	const asPath = resolve(cwd, name);
	const real = await realpath(asPath).catch(() => null);
	for (const worktree of fleet) {
		if (resolve(worktree.path) === asPath) return worktree;
		if (real && (await realpath(worktree.path).catch(() => null)) === real) return worktree;
	}
	return undefined;
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
export function recoveryRef(branch: string | null, now: Date): string {
	const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
	return `refs/discern/recovery/${branch ?? "detached"}-${stamp}`;
}
