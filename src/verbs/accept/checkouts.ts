import type { Refusal } from "../../contract/envelope.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { realPathOf } from "../../platform/files.ts";
import type { Lock } from "../../platform/lock.ts";
import { takeLock } from "../../state/verb-lock.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";
import { type ListedWorktree, listWorktrees } from "../../worktree/git-worktrees.ts";
import { checkoutProblem, filesInTheWay, isSymbolicBranch, noteRefProblem, operationOnTrunk, staleRefLock } from "./land.ts";

/*
 * The checkouts the trunk moves under: whether each lets it move now (no
 * operation under way on the trunk, no second checkout of it, nothing of a
 * person's where the landing puts files), and the checkout locks held while
 * it does.
 */

/** The one checkout with the trunk checked out (null: none), or why the trunk cannot move under the checkouts now. */
export type Checkouts =
	| { ok: true; onTrunk: ListedWorktree | null }
	| { ok: false; error: "dirty_worktree" | "locked" | "no_trunk" | "no_repository" | "write_denied" | "interrupted"; message: string };

export async function checkoutsOnTrunk(here: RepositoryLocation, trunk: string, from: string, to: string, signal?: AbortSignal): Promise<Checkouts> {
	const entries = await listWorktrees(here.root, here.commonDir);
	if (!entries) return { ok: false, error: "no_repository", message: "git could not list the worktrees" };
	if ((await isSymbolicBranch(here.root, trunk)) !== false)
		return {
			ok: false,
			error: "no_trunk",
			message: `the trunk \`${clip(trunk)}\` is a symbolic ref to another branch (or git could not say): a trunk must be a branch of its own`,
		};
	// The note is written after the trunk moved: a notes ref it cannot be written to safely is refused while nothing has landed.
	const notes = await noteRefProblem(here.root);
	if (notes) return { ok: false, error: "write_denied", message: notes };
	const lock = await staleRefLock(here.commonDir, trunk);
	if (lock)
		return { ok: false, error: "locked", message: `git's ref lock ${quoteName(lock)} exists (another git process is updating the trunk, or one died midway)` };
	const live = entries.filter((entry) => !entry.bare && !entry.prunable);
	for (const entry of live) {
		if (!entry.gitDir) continue;
		const busy = await operationOnTrunk(entry.gitDir, entry.branch, trunk);
		if (busy)
			return {
				ok: false,
				error: "dirty_worktree",
				message: `the checkout at ${quoteName(entry.path)} is in the middle of ${busy} on the trunk \`${clip(trunk)}\``,
			};
	}
	const onTrunk = live.filter((entry) => entry.branch === trunk);
	if (onTrunk.length > 1) {
		return {
			ok: false,
			error: "dirty_worktree",
			message: `${plural(onTrunk.length, "checkout")} have the trunk \`${clip(trunk)}\` checked out (${onTrunk.map((entry) => quoteName(entry.path)).join(", ")}); only one can move with it`,
		};
	}
	const checkout = onTrunk[0] ?? null;
	if (checkout) {
		const problem = await checkoutProblem(checkout.path, from, to, signal);
		if (problem) return { ok: false, error: problem.interrupted ? "interrupted" : "dirty_worktree", message: problem.message };
		const blocked = await filesInTheWay(checkout.path, from, to);
		if (blocked === null)
			return { ok: false, error: "dirty_worktree", message: `git could not list what the landing adds to the checkout at ${quoteName(checkout.path)}` };
		if (blocked.length > 0) {
			const names = blocked.slice(0, 10).map(quoteName).join(", ");
			return {
				ok: false,
				error: "dirty_worktree",
				message: `the checkout at ${quoteName(checkout.path)} is on the trunk and has files (untracked or ignored) where the landing puts tracked ones: ${names}${blocked.length > 10 ? ` and ${blocked.length - 10} more` : ""}; landing would overwrite them`,
			};
		}
	}
	return { ok: true, onTrunk: checkout };
}

/** The checkout lock of every checkout whose files may move (unless it is where accept runs: the pipeline holds that one). */
export async function lockCheckouts(
	here: RepositoryLocation,
	entries: readonly ListedWorktree[],
): Promise<{ ok: true; locks: Lock[] } | { ok: false; refusal: Refusal }> {
	const locks: Lock[] = [];
	const hereGitDir = await realPathOf(here.gitDir);
	for (const entry of entries) {
		if (!entry.gitDir || (await realPathOf(entry.gitDir)) === hereGitDir) continue;
		const taken = takeLock(
			"checkout",
			{ root: entry.path, gitDir: entry.gitDir, commonDir: here.commonDir, location: entry.main ? "main" : "worktree" },
			"accept",
		);
		if (!taken.ok) {
			for (const lock of locks) lock.release();
			return { ok: false, refusal: { ...taken.refusal, message: taken.refusal.message.replace(/^This checkout/, `The checkout at ${quoteName(entry.path)}`) } };
		}
		locks.push(taken.lock);
	}
	return { ok: true, locks };
}
