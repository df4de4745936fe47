import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem, type Result } from "../../contract/envelope.ts";
import { createRef, deleteBranchAt, removeWorktree } from "../../git/worktrees.ts";
import { ref, sayFor } from "../../hints/refer.ts";
import { clip } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import { oneLine, quoteName } from "../../text/terminal.ts";
import { plural } from "../../text/plural.ts";
import { type FleetWorktree } from "../../worktree/fleet.ts";
import { toItem } from "../../worktree/item.ts";
import { destroyResources } from "../../worktree/resources.ts";
import { commandEnv, openFleet } from "./open.ts";
import type { WorktreeDropData, WorktreeDropInput } from "./schema.ts";
import { findTarget, knownNames, lockTarget, recoveryRef } from "./target.ts";

type Input = v.InferOutput<typeof WorktreeDropInput>;
type DropResult = Result<"worktree drop", WorktreeDropData>;

/**
 * `worktree drop ID`: discard one line of work, from the main checkout.
 * Refuses uncommitted changes (`dirty_worktree`) and commits the trunk
 * lacks (`active_worktrees`: the work is still active) unless `--force`;
 * before anything is removed the tip is saved under refs/discern/recovery/.
 */
export async function worktreeDrop(ctx: VerbContext, input: Input): Promise<DropResult> {
	const say = sayFor(ctx.surface);
	const opened = await openFleet(ctx, "main");
	if (!opened.ok) return asVerb("worktree drop", opened.refusal);
	const { repository, fleet, trunk } = opened;
	const target = await findTarget(fleet, input.id, ctx.cwd);
	if (!target) {
		const suggestion = nearest(input.id, knownNames(fleet));
		return fail("worktree drop", "unknown_target", `No worktree is named ${clip(quoteName(input.id))} (by task id, branch or path).`, [
			suggestion ? say`Did you mean ${ref("worktree drop", { id: suggestion })}?` : say`Run ${ref("worktree list")} to see every worktree.`,
		]);
	}
	if (target.main) return fail("worktree drop", "invalid_arguments", "The main checkout is never dropped: it holds the repository itself.", [say`Name a linked worktree; ${ref("worktree list")} shows them.`]);
	const base = (): WorktreeDropData => ({ worktree: toItem(target), recovery_ref: null, removed: false, branch_deleted: false, resources: { destroyed: [], failed: [] } });
	const name = clip(quoteName(target.id ?? target.branch ?? target.path));
	if (target.problem || !target.gitDir) {
		return fail("worktree drop", "write_denied", `discern will not remove worktree ${name}: ${target.problem ?? "git's admin files do not name it"}.`, [
			"Look at it yourself; `git worktree remove` or `git worktree prune` remove what is left once you are sure.",
		], { data: base() });
	}
	if (!input.force) {
		const refusal = unforced(target, trunk.name, say, input);
		if (refusal) return { ...refusal, data: base() };
	}
	const saved = target.head ? recoveryRef(target.branch, new Date()) : null;
	const plan: PlanItem[] = [
		{ kind: "save", label: saved ?? "(no commit to save)", disposition: saved ? "run" : "skip", ...(target.head ? { note: target.head } : {}) },
		{ kind: "destroy", label: "its resources (the ledger, newest first)", disposition: target.id ? "run" : "skip" },
		{ kind: "remove", label: target.path, disposition: "run" },
		{ kind: "delete-branch", label: target.branch ?? "(detached)", disposition: target.branch && target.head ? "run" : "skip" },
	];
	if (input.dry_run) return ok("worktree drop", `Would drop worktree ${name}${saved ? `, saving its tip as ${saved} first` : ""}.`, base(), { dry_run: true, plan });

	const locked = lockTarget(repository, target, "worktree drop");
	if (locked && !locked.ok) return { ...asVerb("worktree drop", locked.refusal), data: base() };
	try {
		return await carryOut(ctx, repository.root, repository.commonDir, target, saved, base(), name);
	} finally {
		if (locked?.ok) locked.lock.release();
	}
}

/** Uncommitted changes or unlanded commits: the refusal that names them, or null when there are none. */
function unforced(target: FleetWorktree, trunk: string | null, say: ReturnType<typeof sayFor>, input: Input): Omit<Extract<DropResult, { ok: false }>, "data"> | null {
	const forced = say`${ref("worktree drop", { id: input.id, force: true })}`;
	if (target.clean !== true) {
		const what = target.clean === null ? "git could not tell whether it has uncommitted changes" : "it has uncommitted changes";
		return fail("worktree drop", "dirty_worktree", `Worktree ${clip(quoteName(input.id))} was not dropped: ${what}.`, [
			`Commit or discard them there first; or, to discard them, run ${forced} (the committed tip is saved under refs/discern/recovery/ first).`,
		]);
	}
	if (target.ahead !== 0) {
		const what = target.ahead === null ? `discern could not tell whether the trunk${trunk ? ` \`${trunk}\`` : ""} holds its commits` : `${plural(target.ahead, "commit")} on it ${target.ahead === 1 ? "is" : "are"} not on the trunk \`${trunk ?? "?"}\``;
		return fail("worktree drop", "active_worktrees", `Worktree ${clip(quoteName(input.id))} was not dropped: ${what}.`, [
			`Land the work first, or run ${forced} to discard it (its tip is saved under refs/discern/recovery/ first, and can be restored).`,
		]);
	}
	return null;
}

async function carryOut(ctx: VerbContext, root: string, commonDir: string, target: FleetWorktree, saved: string | null, data: WorktreeDropData, name: string): Promise<DropResult> {
	if (saved && target.head) {
		const created = await createRef(root, saved, target.head);
		if (!created.ok) return fail("worktree drop", "write_denied", `Nothing was removed: the tip could not be saved as ${saved} (${clip(oneLine(created.reason))}).`, ["Check that the repository is writable, then run this again."], { data });
		data.recovery_ref = saved;
	}
	const restore = saved ? ` Its tip ${target.head?.slice(0, 7)} is saved as ${saved}; restore it with \`git branch ${target.branch ?? "BRANCH"} ${saved}\`.` : "";
	if (target.id) {
		const destroyed = await destroyResources(commonDir, target.id, { cwd: target.path, env: commandEnv(ctx.env, { DISCERN_WORKTREE_ID: target.id }), signal: ctx.signal });
		data.resources = { destroyed: destroyed.destroyed, failed: destroyed.failed };
		if (!destroyed.ok) {
			return fail("worktree drop", "provisioned_resources", `Worktree ${name} was kept: ${plural(destroyed.failed.length, "resource")} could not be destroyed (${destroyed.failed.map((failure) => failure.name).join(", ")}).${restore}`, [
				"Fix what the destroy command needs, then drop it again: what was destroyed is not destroyed twice.",
			], { data });
		}
	}
	const removed = await removeWorktree(root, target.path);
	if (!removed.ok) return fail("worktree drop", "write_denied", `git could not remove worktree ${name}: ${clip(oneLine(removed.reason))}.${restore}`, ["Check for files git cannot delete there, then run this again."], { data });
	data.removed = true;
	const hints: string[] = [];
	if (target.branch && target.head) {
		const deleted = await deleteBranchAt(root, target.branch, target.head);
		data.branch_deleted = deleted.ok;
		if (!deleted.ok) hints.push(`The branch \`${clip(target.branch)}\` was kept: ${clip(oneLine(deleted.reason))}.`);
	}
	return ok("worktree drop", `Dropped worktree ${name}.${restore}`, data, hints.length > 0 ? { hints } : {});
}
