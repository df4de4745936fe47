import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { provenAncestor } from "../../git/ancestry.ts";
import { clip, clipList } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { oneLine } from "../../text/terminal.ts";
import { type FleetWorktree, hasLanded } from "../../worktree/fleet.ts";
import { deleteBranchAt, removeWorktree } from "../../worktree/git-worktrees.ts";
import { keptReasons, type PersonFiles, personFiles } from "../../worktree/person-files.ts";
import { destroyResources } from "../../worktree/resources.ts";
import { readTask } from "../../worktree/task.ts";
import { readTreeWork } from "../../worktree/tree-work.ts";
import { openFleet } from "./open.ts";
import type { WorktreePruneData, WorktreePruneInput } from "./schema.ts";
import { checkedOutElsewhere, lockTarget } from "./target.ts";

type PruneResult = Result<"worktree prune", WorktreePruneData>;

/**
 * `worktree prune`: remove the worktrees discern started whose work has
 * landed (the branch tip is on the trunk) and that are clean. Everything
 * else is listed as skipped with the reason; the main checkout never appears.
 */
export async function worktreePrune(ctx: VerbContext, input: v.InferOutput<typeof WorktreePruneInput>): Promise<PruneResult> {
	const { say } = ctx;
	const opened = await openFleet(ctx, "main");
	if (!opened.ok) return asVerb("worktree prune", opened.refusal);
	const { repository, fleet, trunk } = opened;
	const linked = fleet.filter((worktree) => !worktree.main);
	const chosen: FleetWorktree[] = [];
	const data: WorktreePruneData = { removed: [], skipped: [], would_remove: [] };
	// Ignored files (build output, a local .env) go with the folder: the plan names them.
	const ignoredAt: string[][] = [];
	for (const worktree of linked) {
		const reason = whyKept(worktree, trunk.name);
		const person = reason ? null : await personFiles(worktree.path, worktree.gitDir, repository.root, worktree.task, true);
		const kept = reason ?? personReason(person);
		if (kept) data.skipped.push({ ...named(worktree), reason: kept });
		else {
			chosen.push(worktree);
			ignoredAt.push(person?.scan.ignored ?? []);
		}
	}
	data.would_remove = chosen.map((worktree) => worktree.path);
	const ignoredTotal = ignoredAt.reduce<number>((sum, ignored) => sum + ignored.length, 0);
	const plan: PlanItem[] = [
		...chosen.map((worktree, index): PlanItem => {
			const ignored = ignoredAt[index] ?? [];
			return {
				kind: "remove",
				label: worktree.path,
				disposition: "run",
				note: `${worktree.branch ?? "detached"}: landed and clean${ignored.length > 0 ? `; ignored, deleted with it: ${clip(clipList(ignored, 10), 400)}` : ""}`,
			};
		}),
		...data.skipped.map((skipped): PlanItem => ({ kind: "remove", label: skipped.path, disposition: "skip", note: skipped.reason })),
	];
	const kept = data.skipped.length > 0 ? ` ${plural(data.skipped.length, "worktree")} kept (see the reasons).` : "";
	if (chosen.length === 0) return ok("worktree prune", `Nothing to prune: no worktree discern started has landed and is clean.${kept}`, data);
	const would = `Would remove ${plural(chosen.length, "landed worktree")} and ${chosen.length === 1 ? "its branch" : "their branches"}${ignoredTotal > 0 ? `, deleting ${plural(ignoredTotal, "ignored file or folder", "ignored files or folders")} in ${chosen.length === 1 ? "it" : "them"}` : ""}.${kept}`;
	if (input.dry_run) return ok("worktree prune", would, data, { dry_run: true, plan });
	if (!input.yes) {
		const preview = ok("worktree prune", would, data, { dry_run: true, plan, hints: [say`Run ${ref("worktree prune", { yes: true })} to remove them.`] });
		if (!ctx.confirm) return preview;
		if (!(await ctx.confirm(`Remove ${plural(chosen.length, "worktree")}?`, preview))) {
			return ok("worktree prune", "Nothing removed.", data, {
				dry_run: true,
				plan,
				hints: [say`Run ${ref("worktree prune", { yes: true })} when you want them removed.`],
			});
		}
	}
	let failedResources = 0;
	const lost: string[] = [];
	for (const worktree of chosen) {
		const outcome = await pruneOne(ctx, repository, worktree, trunk.name, checkedOutElsewhere(fleet, worktree).length > 0, lost);
		if (outcome === null) data.removed.push(named(worktree));
		else {
			data.skipped.push({ ...named(worktree), reason: outcome.reason });
			if (outcome.resources) failedResources++;
		}
	}
	data.would_remove = [];
	const message = `Removed ${plural(data.removed.length, "worktree")}${data.skipped.length > 0 ? `; kept ${data.skipped.length}` : ""}.${lost.length > 0 ? ` Deleted with them, not saved: ${lost.join("; ")}.` : ""}`;
	if (failedResources > 0) {
		return fail(
			"worktree prune",
			"provisioned_resources",
			`${message} ${plural(failedResources, "worktree")} kept because its resources could not be destroyed.`,
			["Fix what the destroy commands need (the reasons are in `data.skipped`), then prune again."],
			{ data },
		);
	}
	return ok("worktree prune", message, data);
}

/** Why a worktree stays; null when prune may remove it. Ownership first: nothing else is judged for a worktree discern did not start. */
function whyKept(worktree: FleetWorktree, trunk: string | null): string | null {
	if (!worktree.task) return "discern did not start it (no task record in its git admin dir)";
	if (!worktree.created_by_discern) return "its task record does not say discern created it";
	if (worktree.branch === null) return "HEAD is detached";
	if (worktree.task.branch !== worktree.branch) return `it is on \`${clip(worktree.branch)}\`, not the branch discern started it on`;
	if (worktree.problem) return worktree.problem;
	if (worktree.locked) return "git keeps it locked (`git worktree lock`)";
	if (worktree.clean === null) return "git could not tell whether it is clean";
	if (!worktree.clean) return "it has uncommitted changes";
	if (worktree.ahead === null) return `discern could not tell whether the trunk${trunk ? ` \`${trunk}\`` : ""} holds its commits`;
	if (worktree.ahead > 0) return `${plural(worktree.ahead, "commit")} not on the trunk yet`;
	// A fresh worktree (nothing committed beyond where it started) is work about to begin, not landed work.
	if (worktree.landed === false) return "nothing committed on it yet (its tip is where the task started)";
	if (worktree.landed !== true) return "discern could not tell whether its work has landed";
	return null;
}

/** Remove one worktree under its own lock, judged again right before: null when removed, else why not. */
async function pruneOne(
	ctx: VerbContext,
	repository: { root: string; commonDir: string; gitDir: string; location: "main" | "worktree" },
	worktree: FleetWorktree,
	trunk: string | null,
	branchInUse: boolean,
	lost: string[],
): Promise<{ reason: string; resources?: true } | null> {
	const locked = lockTarget(repository, worktree, "worktree prune");
	if (!locked) return { reason: "git's admin files do not name it" };
	if (!locked.ok) return { reason: "a discern run there holds its lock" };
	try {
		// Between the plan and now a person may have typed there: read it again.
		const [work, task] = await Promise.all([readTreeWork(worktree.path, repository.commonDir), worktree.gitDir ? readTask(worktree.gitDir) : null]);
		const now = work?.working ?? null;
		const again = whyKept(
			{
				...worktree,
				task,
				created_by_discern: task?.created_by === "discern",
				clean: work ? work.clean : null,
				branch: now?.branch ?? null,
				landed: await hasLanded(repository.root, task, now?.head ?? null, worktree.ahead),
			},
			trunk,
		);
		if (again) return { reason: again };
		if (now?.head !== worktree.head) return { reason: "its HEAD moved since the plan" };
		// Landed, proved on hashed objects before anything is destroyed: git's own count walks parents it never re-hashes.
		if (!trunk || (await provenAncestor(repository.root, worktree.head ?? "", `refs/heads/${trunk}`)) !== true)
			return { reason: "discern could not prove the trunk holds its commits" };
		if (worktree.id) {
			const destroyed = await destroyResources(repository.commonDir, worktree.id, {
				cwd: worktree.path,
				env: ctx.env,
				signal: ctx.signal,
				worktree: worktree.path,
			});
			if (!destroyed.ok)
				return { reason: `resources not destroyed: ${destroyed.failed.map((failure) => `${failure.name} (${failure.message})`).join("; ")}`, resources: true };
		}
		// The destroy commands ran for up to minutes: judged once more right before the folder goes.
		const after = await readTreeWork(worktree.path, repository.commonDir);
		if (!after?.clean || after.working.head !== worktree.head) {
			const what = !after ? "git could not tell whether it is clean" : !after.clean ? "it has uncommitted changes" : "its HEAD moved";
			return { reason: `${what} since its resources were destroyed (they are destroyed; the worktree stays)` };
		}
		// A repository made in it meanwhile (a clone in an ignored folder, a submodule's new commit), or an env file edited, stops it here too.
		const person = await personFiles(worktree.path, worktree.gitDir, repository.root, task, true);
		const keeps = personReason(person);
		if (keeps) return { reason: `${keeps} (its resources are destroyed; the worktree stays)` };
		const removed = await removeWorktree(repository.root, worktree.path);
		if (!removed.ok) return { reason: `git could not remove it: ${clip(oneLine(removed.reason))}` };
		const ignored = person?.scan.ignored ?? [];
		if (ignored.length > 0)
			lost.push(`${plural(ignored.length, "ignored file or folder", "ignored files or folders")} in ${worktree.path} (${clip(clipList(ignored, 10), 400)})`);
		// Landed work only: the branch holds nothing the trunk lacks, and it is deleted only while it still points at that tip.
		// A branch another worktree has checked out stays: deleting it would leave that one on a missing branch.
		if (worktree.branch && worktree.head && !branchInUse) await deleteBranchAt(repository.root, worktree.branch, worktree.head);
		return null;
	} finally {
		if (locked.ok) locked.lock.release();
	}
}

/**
 * Why what a person has in a worktree keeps it (person-files.ts: a nested repository holding something only it has,
 * an env file edited since start copied it), as accept and drop judge it; null when nothing would be lost.
 */
function personReason(person: PersonFiles | null): string | null {
	if (!person) return "git could not list the files in it, so discern cannot tell what removing it would lose";
	const reasons = keptReasons(person);
	return reasons.length > 0 ? reasons.join("; ") : null;
}

function named(worktree: FleetWorktree): { path: string; branch: string | null; id: string | null } {
	return { path: worktree.path, branch: worktree.branch, id: worktree.id };
}
