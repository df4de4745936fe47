import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem, type Result } from "../../contract/envelope.ts";
import { ref, type Say } from "../../contract/refer.ts";
import { git } from "../../git/run.ts";
import { killLeftovers } from "../../jobs/leftovers.ts";
import { exists } from "../../platform/files.ts";
import { clip, clipList } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { shellCommand } from "../../text/shell-quote.ts";
import { oneLine, quoteName } from "../../text/terminal.ts";
import { wasDropping } from "../../worktree/dropping.ts";
import type { FleetWorktree } from "../../worktree/fleet.ts";
import { createRef, deleteBranchAt, removeWorktree } from "../../worktree/git-worktrees.ts";
import { toItem } from "../../worktree/item.ts";
import type { NestedScan } from "../../worktree/nested-repos.ts";
import { personFiles } from "../../worktree/person-files.ts";
import { remainsMayGo } from "../../worktree/remains.ts";
import { destroyResources } from "../../worktree/resources.ts";
import { readTreeWork } from "../../worktree/tree-work.ts";
import { snapshotWork } from "../../worktree/wip.ts";
import { finishRemoval, forgetWorktree, unknown } from "./drop-gone.ts";
import { editedEnvRefusal, nestedRefusal } from "./nested-refusal.ts";
import { openFleet } from "./open.ts";
import type { WorktreeDropData, WorktreeDropInput } from "./schema.ts";
import { checkedOutElsewhere, findTargets, lockTarget, recoveryRef } from "./target.ts";

type Input = v.InferOutput<typeof WorktreeDropInput>;
type DropResult = Result<"worktree drop", WorktreeDropData>;

/**
 * `worktree drop ID`: discard one line of work, from the main checkout.
 * Refuses uncommitted changes (`dirty_worktree`) and commits the trunk
 * lacks (`active_worktrees`: the work is still active) unless `--force`.
 * Everything that could stop the removal is checked before anything is
 * destroyed; then the tip (and, with `--force`, the uncommitted work) is
 * saved under refs/discern/recovery/, leftover processes are stopped,
 * resources destroyed, the worktree removed and its branch deleted.
 */
export async function worktreeDrop(ctx: VerbContext, input: Input): Promise<DropResult> {
	const { say } = ctx;
	const opened = await openFleet(ctx, "main");
	if (!opened.ok) return asVerb("worktree drop", opened.refusal);
	const { repository, fleet, trunk, worktreeRoot } = opened;
	const found = await findTargets(fleet, input.id, ctx.cwd);
	if (found.length > 1) {
		return fail(
			"worktree drop",
			"invalid_arguments",
			`${clip(quoteName(input.id))} names ${found.length} worktrees: ${found.map((worktree) => `${quoteName(worktree.path)} (${worktree.id === input.id ? "task id" : worktree.branch === input.id ? "branch" : "path"})`).join(", ")}.`,
			["Name the one you mean by its path."],
		);
	}
	const target = found[0];
	if (!target) return unknown(ctx, input, fleet, repository.root, repository.commonDir);
	if (target.main)
		return fail("worktree drop", "invalid_arguments", "The main checkout is never dropped: it holds the repository itself.", [
			say`Name a linked worktree; ${ref("worktree list")} shows them.`,
		]);
	let scanned: NestedScan = { repositories: [], ignored: [], ignoredHere: [] };
	let editedEnv: string[] = [];
	const base = (): WorktreeDropData => ({
		worktree: toItem(target),
		recovery_ref: null,
		removed: false,
		branch_deleted: false,
		resources: { destroyed: [], failed: [] },
		nested_repositories: scanned.repositories,
		ignored: scanned.ignored,
		edited_env: editedEnv,
	});
	const name = clip(quoteName(target.id ?? target.branch ?? target.path));

	// A folder an earlier drop (or prune) was removing when it was stopped: git deleted its `.git` file and part of the rest.
	// Its work was judged and saved then: this drop finishes it (the rest of the folder, git's record, the branch).
	const noGitFile = (await exists(target.path)) && !(await lstat(join(target.path, ".git")).catch(() => null));
	const halfRemoved = noGitFile && target.gitDir !== null && (await wasDropping(repository.commonDir, target.gitDir, target.path));
	// Everything that would stop the removal, before anything is destroyed.
	const folderGone = halfRemoved || (target.problem !== null && !(await exists(target.path)));
	if (target.locked) {
		return fail(
			"worktree drop",
			"write_denied",
			`Worktree ${name} was not dropped: git keeps it locked (\`git worktree lock\`). Nothing was changed.`,
			[say`Unlock it if it may go (\`${shellCommand("git", "worktree", "unlock", target.path)}\`), then run ${ref("worktree drop", { id: input.id })} again.`],
			{ data: base() },
		);
	}
	// The mark and the path are both writable by an agent (see worktree/remains.ts): where the rest may go is decided here, not by them.
	const otherFolders = fleet.filter((worktree) => worktree !== target).map((worktree) => worktree.path);
	const remainsRefused = halfRemoved ? await remainsMayGo(repository.root, repository.commonDir, worktreeRoot, target.path, otherFolders) : null;
	if (remainsRefused) {
		return fail(
			"worktree drop",
			"write_denied",
			`discern will not finish removing worktree ${name}: ${remainsRefused}. Nothing was changed.`,
			[
				`Look at ${quoteName(target.path)} yourself: \`git worktree prune\` clears git's record of it once the folder is gone, and the folder is yours to delete once you are sure.`,
			],
			{ data: base() },
		);
	}
	if (!target.gitDir || (target.problem && !folderGone) || (noGitFile && !halfRemoved)) {
		return fail(
			"worktree drop",
			"write_denied",
			`discern will not remove worktree ${name}: ${target.problem ?? (noGitFile ? "its folder has no `.git` file, and nothing says a drop was removing it" : "git's admin files do not name it")}. Nothing was changed.`,
			[
				noGitFile
					? `Its folder ${quoteName(target.path)} has no \`.git\` file, so git can no longer remove it: look at it yourself, \`git worktree prune\` clears git's record of it, and the folder is yours to delete once you are sure.`
					: "Look at it yourself; `git worktree remove` removes it once you are sure.",
			],
			{ data: base() },
		);
	}
	if (folderGone && !input.force && !halfRemoved) {
		return fail(
			"worktree drop",
			"dirty_worktree",
			`Worktree ${name} was not dropped: its folder ${quoteName(target.path)} is gone, so discern cannot see what it held.`,
			[
				say`Run ${ref("worktree drop", { id: input.id, force: true })} to destroy its resources, clear git's record of it and delete its branch (the tip is saved under refs/discern/recovery/ first).`,
			],
			{ data: base() },
		);
	}
	// Repositories inside it (a clone, a submodule, one in an ignored folder) go with the folder, and the saved work cannot hold them:
	// judged before the rest, so the refusal names them. With its folder gone, its git dir still holds its submodules' repositories.
	// An env file edited there since start copied it is judged here too, as accept and prune judge it (person-files.ts).
	const person = await personFiles(folderGone ? null : target.path, target.gitDir, repository.root, target.task, true);
	if (!person)
		return fail(
			"worktree drop",
			"dirty_worktree",
			`Worktree ${name} was not dropped: git could not list the files in it, so discern cannot tell what removing it would lose. Nothing was changed.`,
			["Look at it yourself; `git worktree remove` removes it once you are sure."],
			{ data: base() },
		);
	scanned = person.scan;
	editedEnv = person.edited_env;
	if (person.repositories.length > 0) {
		const refusal = nestedRefusal(target.path, person.repositories, say, input, `Worktree ${name} was not dropped`, " Nothing was changed.");
		return { ...refusal, data: base() };
	}
	if (editedEnv.length > 0)
		return {
			...editedEnvRefusal(target.path, repository.root, editedEnv, say, input, `Worktree ${name} was not dropped`, " Nothing was changed."),
			data: base(),
		};
	if (!input.force && !halfRemoved) {
		const refusal = unforced(target, trunk.name, say, input);
		if (refusal) return { ...refusal, data: base() };
	}
	const now = new Date();
	const saved = target.head ? recoveryRef(target.branch, now) : null;
	const dirty = !folderGone && target.clean !== true;
	const wipName = recoveryRef(target.branch, now, "-wip");
	const wip = dirty ? wipName : null;
	const others = checkedOutElsewhere(fleet, target);
	const keepBranch = others.length > 0 ? `it is also checked out in ${others.map((other) => quoteName(other.path)).join(", ")}` : null;
	const ignored = scanned.ignored;
	const plan: PlanItem[] = [
		{ kind: "save", label: saved ?? "(no commit to save)", disposition: saved ? "run" : "skip", ...(target.head ? { note: target.head } : {}) },
		...(wip ? [{ kind: "save", label: wip, disposition: "run" as const, note: "uncommitted changes and untracked files" }] : []),
		{ kind: "destroy", label: "its resources (the ledger, newest first)", disposition: target.id ? "run" : "skip" },
		{
			kind: "remove",
			label: target.path,
			disposition: "run",
			...(halfRemoved
				? { note: "an earlier removal was stopped halfway: the rest of its folder and git's record" }
				: folderGone
					? { note: "folder gone: git's record only" }
					: ignored.length > 0
						? { note: `ignored, lost: ${clip(clipList(ignored, 10), 400)}` }
						: {}),
		},
		{
			kind: "delete-branch",
			label: target.branch ?? "(detached)",
			disposition: target.branch && target.head && !keepBranch ? "run" : "skip",
			...(keepBranch ? { note: keepBranch } : {}),
		},
	];
	if (input.dry_run)
		return ok(
			"worktree drop",
			`Would drop worktree ${name}${saved ? `, saving its tip as ${saved} first` : ""}${wip ? ` and its uncommitted work as ${wip}` : ""}.${ignoredNote(ignored, "would")}`,
			base(),
			{ dry_run: true, plan },
		);

	const locked = lockTarget(repository, target, "worktree drop");
	if (locked && !locked.ok) return { ...asVerb("worktree drop", locked.refusal), data: base() };
	try {
		return await carryOut(
			ctx,
			{ root: repository.root, commonDir: repository.commonDir },
			target,
			{ saved, wip, wipName, folderGone, halfRemoved, keepBranch, force: input.force === true, input, worktreeRoot, others: otherFolders },
			base(),
			name,
		);
	} finally {
		if (locked?.ok) locked.lock.release();
	}
}

/** Uncommitted changes or unlanded commits: the refusal that names them, or null when there are none. */
function unforced(target: FleetWorktree, trunk: string | null, say: Say, input: Input): Omit<Extract<DropResult, { ok: false }>, "data"> | null {
	const forced = say`${ref("worktree drop", { id: input.id, force: true })}`;
	if (target.clean !== true) {
		const what = target.clean === null ? "git could not tell whether it has uncommitted changes" : "it has uncommitted changes";
		return fail("worktree drop", "dirty_worktree", `Worktree ${clip(quoteName(input.id))} was not dropped: ${what}.`, [
			`Commit or discard them there first; or run ${forced} (the tip and the uncommitted work are saved under refs/discern/recovery/ first; ignored files are lost).`,
		]);
	}
	if (target.ahead !== 0) {
		const what =
			target.ahead === null
				? `discern could not tell whether the trunk${trunk ? ` \`${trunk}\`` : ""} holds its commits`
				: `${plural(target.ahead, "commit")} on it ${target.ahead === 1 ? "is" : "are"} not on the trunk \`${trunk ?? "?"}\``;
		return fail("worktree drop", "active_worktrees", `Worktree ${clip(quoteName(input.id))} was not dropped: ${what}.`, [
			`Land the work first, or run ${forced} to discard it (its tip is saved under refs/discern/recovery/ first, and can be restored).`,
		]);
	}
	return null;
}

interface DropPlan {
	saved: string | null;
	wip: string | null;
	/** Where uncommitted work goes: `wip` when there was some at the plan, this name when some appears later. */
	wipName: string;
	folderGone: boolean;
	/** The folder is what an earlier, stopped removal left (no `.git` file): the rest of it goes before git's record. */
	halfRemoved: boolean;
	force: boolean;
	keepBranch: string | null;
	input: Input;
	/** The configured [worktree].root, and the other worktrees' folders: what a half-removed folder is checked against. */
	worktreeRoot: string;
	others: readonly string[];
}

async function carryOut(
	ctx: VerbContext,
	where: { root: string; commonDir: string },
	target: FleetWorktree,
	plan: DropPlan,
	data: WorktreeDropData,
	name: string,
): Promise<DropResult> {
	const { root, commonDir } = where;
	const { saved, wip } = plan;
	if (saved && target.head) {
		// A ref of this name already at this tip (a drop run again within the second) is the same save.
		const created = await createRef(root, saved, target.head).then(async (made) =>
			made.ok || (await git(["rev-parse", "--verify", "--quiet", `${saved}^{commit}`], root)).stdout.trim() === target.head ? { ok: true as const } : made,
		);
		if (!created.ok)
			return fail(
				"worktree drop",
				"write_denied",
				`Nothing was removed: the tip could not be saved as ${saved} (${clip(oneLine(created.reason))}).`,
				["Check that the repository is writable, then run this again."],
				{ data },
			);
		data.recovery_ref = saved;
	}
	let wipNote = "";
	let wipCommit: string | null = null;
	const wipMessage = `discern: uncommitted work of ${target.branch ?? target.path}, saved by worktree drop --force`;
	if (wip) {
		const snapshot = await snapshotWork(target.path, target.head, ctx.env, wipMessage);
		const stored = snapshot.ok ? await createRef(root, wip, snapshot.commit) : snapshot;
		if (snapshot.ok && stored.ok) wipCommit = snapshot.commit;
		if (!stored.ok) {
			return fail(
				"worktree drop",
				"write_denied",
				`Nothing was removed: the uncommitted work could not be saved (${clip(oneLine(stored.reason))}), and --force never discards work without a copy.`,
				["Commit or copy the changes yourself, then drop it again."],
				{ data },
			);
		}
		wipNote = ` Its uncommitted work is saved as ${wip}: restore it with \`${shellCommand("git", "restore", `--source=${wip}`, "--", ".")}\` in a checkout of the branch.`;
	}
	// What a killed `start` or gate left running there: recorded in its state dir, stopped before its folder goes.
	const stopped = target.gitDir ? await killLeftovers(target.gitDir).catch(() => [] as string[]) : [];
	if (target.id) {
		const destroyed = await destroyResources(commonDir, target.id, {
			cwd: plan.folderGone ? root : target.path,
			env: ctx.env,
			signal: ctx.signal,
			worktree: target.path,
		});
		data.resources = { destroyed: destroyed.destroyed, failed: destroyed.failed };
		if (!destroyed.ok) {
			return fail(
				"worktree drop",
				"provisioned_resources",
				`Worktree ${name} was kept: ${plural(destroyed.failed.length, "resource")} could not be destroyed (${destroyed.failed.map((failure) => failure.name).join(", ")}).${wipNote}`,
				["Fix what the destroy command needs, then drop it again: what was destroyed is not destroyed twice."],
				{ data },
			);
		}
	}
	// The destroy commands ran for up to minutes: whatever was written there meanwhile is judged again right before the folder goes.
	if (!plan.folderGone) {
		const destroyedNote =
			data.resources.destroyed.length > 0
				? ` Its resources were already destroyed (${data.resources.destroyed.join(", ")}); the worktree and its branch remain.`
				: " The worktree and its branch remain.";
		// A repository made in it meanwhile stops the removal before any snapshot: `git add` would record it as a bare pointer.
		// So does an env file edited meanwhile.
		const person = await personFiles(target.path, target.gitDir, root, target.task, true);
		if (!person)
			return fail(
				"worktree drop",
				"dirty_worktree",
				`Worktree ${name} was not removed: git could not list the files in it, so discern cannot tell what removing it would lose.${destroyedNote}`,
				["Look at it yourself; `git worktree remove` removes it once you are sure."],
				{ data },
			);
		data.nested_repositories = person.scan.repositories;
		data.ignored = person.scan.ignored;
		data.edited_env = person.edited_env;
		if (person.repositories.length > 0) {
			const refusal = nestedRefusal(target.path, person.repositories, ctx.say, plan.input, `Worktree ${name} was not removed`, `${wipNote}${destroyedNote}`);
			return { ...refusal, data };
		}
		if (person.edited_env.length > 0)
			return {
				...editedEnvRefusal(target.path, root, person.edited_env, ctx.say, plan.input, `Worktree ${name} was not removed`, `${wipNote}${destroyedNote}`),
				data,
			};
		const work = await readTreeWork(target.path, commonDir);
		if (!work?.clean) {
			const what = !work
				? "git could not tell whether it has uncommitted changes"
				: `it has uncommitted changes${work.hidden.length > 0 ? ` (including ${plural(work.hidden.length, "file")} hidden from \`git status\`: ${clip(work.hidden.join(", "), 200)})` : ""}`;
			if (!plan.force) {
				return fail(
					"worktree drop",
					"dirty_worktree",
					`Worktree ${name} was not removed: ${what}, written while its resources were destroyed.${destroyedNote}`,
					[
						`Commit or discard the changes there, then drop it again; or drop it with --force (the uncommitted work is saved under refs/discern/recovery/ first).`,
					],
					{ data },
				);
			}
			const snapshot = work ? await snapshotWork(target.path, work.working.head ?? target.head, ctx.env, wipMessage) : ({ ok: false, reason: what } as const);
			const stored = !snapshot.ok
				? snapshot
				: wipCommit && wip
					? await createRef(root, wip, snapshot.commit, wipCommit)
					: await createRef(root, plan.wipName, snapshot.commit);
			if (!stored.ok) {
				return fail(
					"worktree drop",
					"write_denied",
					`Worktree ${name} was not removed: its uncommitted work could not be saved (${clip(oneLine(stored.reason))}), and --force never discards work without a copy.${destroyedNote}`,
					["Commit or copy the changes yourself, then drop it again."],
					{ data },
				);
			}
			const savedAs = wip ?? plan.wipName;
			wipNote = ` Its uncommitted work is saved as ${savedAs}: restore it with \`${shellCommand("git", "restore", `--source=${savedAs}`, "--", ".")}\` in a checkout of the branch.`;
		}
	}
	const removed = plan.halfRemoved
		? await finishRemoval(root, commonDir, target, plan)
		: plan.folderGone
			? await forgetWorktree(root, commonDir, target)
			: await removeWorktree(root, target.path, target.gitDir ? { commonDir, admin: target.gitDir } : undefined);
	if (!removed.ok) {
		// git runs in a session of its own: a signal stops it only when sent to it (or discern's whole session) on purpose.
		const stopped = ("killedBy" in removed && removed.killedBy !== undefined) || ctx.signal.aborted;
		return fail(
			"worktree drop",
			stopped ? "interrupted" : "write_denied",
			`git could not remove worktree ${name}: ${clip(oneLine(removed.reason))}.${wipNote}`,
			[
				stopped
					? ctx.say`Run ${ref("worktree drop", { id: plan.input.id, ...(plan.force ? { force: true } : {}) })} again: it finishes the removal.`
					: "Check for files git cannot delete there, then run this again.",
			],
			{ data },
		);
	}
	data.removed = true;
	const hints: string[] = [...stopped];
	if ("kept" in removed && typeof removed.kept === "string")
		hints.push(
			`What the stopped removal left of its folder was moved, not deleted, to ${quoteName(removed.kept)}: look through it, then delete it once you are sure.`,
		);
	if (target.branch && target.head) {
		if (plan.keepBranch) hints.push(`The branch \`${clip(target.branch)}\` was kept: ${plan.keepBranch}.`);
		else {
			const deleted = await deleteBranchAt(root, target.branch, target.head);
			data.branch_deleted = deleted.ok;
			if (!deleted.ok) hints.push(`The branch \`${clip(target.branch)}\` was kept: ${clip(oneLine(deleted.reason))}.`);
		}
	}
	// The restore hint only when the branch is really gone.
	const restore =
		data.branch_deleted && saved
			? ` Its tip ${target.head?.slice(0, 7)} is saved as ${saved}; restore it with \`${shellCommand("git", "branch", target.branch ?? "BRANCH", saved)}\`.`
			: saved
				? ` Its tip is also saved as ${saved}.`
				: "";
	return ok("worktree drop", `Dropped worktree ${name}.${restore}${wipNote}${ignoredNote(data.ignored, "did")}`, data, hints.length > 0 ? { hints } : {});
}

/** The ignored files that go with the folder, named (clipped): nothing saves them. */
function ignoredNote(ignored: readonly string[], when: "would" | "did"): string {
	if (ignored.length === 0) return "";
	const were = when === "would" ? "would be" : ignored.length === 1 ? "was" : "were";
	return ` ${plural(ignored.length, "ignored file or folder", "ignored files or folders")} in it ${were} deleted, not saved: ${clip(
		clipList(
			ignored.map((path) => quoteName(path)),
			10,
		),
		400,
	)}.`;
}
