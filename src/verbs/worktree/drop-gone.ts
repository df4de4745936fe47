import { lstat, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { fail, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { exists, isInside } from "../../platform/files.ts";
import { Keeper } from "../../state/kept.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";
import { clearDropping, wasDropping } from "../../worktree/dropping.ts";
import type { FleetWorktree } from "../../worktree/fleet.ts";
import { listWorktrees } from "../../worktree/git-worktrees.ts";
import { isWorktreeId } from "../../worktree/id.ts";
import { readLedger } from "../../worktree/ledger.ts";
import { remainsMayGo } from "../../worktree/remains.ts";
import { destroyResources } from "../../worktree/resources.ts";
import type { WorktreeDropData, WorktreeDropInput } from "./schema.ts";
import { didYouMean, knownNames } from "./target.ts";

type Input = v.InferOutput<typeof WorktreeDropInput>;
type DropResult = Result<"worktree drop", WorktreeDropData>;

/**
 * `worktree drop` for a worktree that is gone or half gone: a name no listed
 * worktree answers to (the resource ledger a gone worktree left, its
 * resources destroyed with --force; or a did-you-mean), a folder an earlier
 * drop was stopped removing, git's record of a folder that is gone.
 */
/** No worktree by that name: a ledger left by one that is gone, or a did-you-mean. */
export async function unknown(ctx: VerbContext, input: Input, fleet: readonly FleetWorktree[], root: string, commonDir: string): Promise<DropResult> {
	const { say } = ctx;
	const ledger = isWorktreeId(input.id) ? await readLedger(commonDir, input.id).catch(() => null) : null;
	if (ledger)
		return dropOrphan(
			ctx,
			input,
			root,
			commonDir,
			ledger.worktree,
			ledger.entries.filter((entry) => entry.state !== "destroyed").map((entry) => entry.name),
		);
	const guesses = didYouMean(input.id, knownNames(fleet));
	return fail("worktree drop", "unknown_target", `No worktree is named ${clip(quoteName(input.id))} (by task id, branch or path).`, [
		guesses.length > 0
			? say`Did you mean ${guesses.map((guess) => say`${ref("worktree drop", { id: guess })}`).join(" or ")}?`
			: say`Run ${ref("worktree list")} to see every worktree.`,
	]);
}

/** A resource ledger whose worktree git no longer lists: its resources still exist; destroy them (with --force). */
async function dropOrphan(ctx: VerbContext, input: Input, root: string, commonDir: string, worktree: string, pending: string[]): Promise<DropResult> {
	const { say } = ctx;
	const empty: WorktreeDropData = {
		worktree: {
			id: input.id,
			title: null,
			branch: null,
			path: "",
			main: false,
			created_by_discern: true,
			clean: null,
			ahead: null,
			behind: null,
			proof: "missing",
			last_activity: null,
			problem: "its worktree is gone; its resource ledger remains",
			locked: false,
			landed: null,
		},
		recovery_ref: null,
		removed: false,
		branch_deleted: false,
		resources: { destroyed: [], failed: [] },
		nested_repositories: [],
		ignored: [],
		edited_env: [],
	};
	const what = `Worktree ${clip(quoteName(input.id))} is gone, but its resource ledger still lists ${plural(pending.length, "resource")}${pending.length > 0 ? ` (${pending.join(", ")})` : ""}`;
	if (!input.force) {
		return fail(
			"worktree drop",
			"provisioned_resources",
			`${what}; nothing was destroyed.`,
			[say`Run ${ref("worktree drop", { id: input.id, force: true })} to destroy them with the environment they were created with.`],
			{ data: empty },
		);
	}
	if (input.dry_run)
		return ok("worktree drop", `${what}: would destroy them, newest first.`, empty, {
			dry_run: true,
			plan: pending.toReversed().map((label) => ({ kind: "destroy", label, disposition: "run" as const })),
		});
	// The ledger's own worktree: destroyResources still refuses when a listed worktree is at that path or claims the id.
	const destroyed = await destroyResources(commonDir, input.id, { cwd: root, env: ctx.env, signal: ctx.signal, worktree });
	const data = { ...empty, resources: { destroyed: destroyed.destroyed, failed: destroyed.failed } };
	if (!destroyed.ok) {
		return fail(
			"worktree drop",
			"provisioned_resources",
			`${what}; ${plural(destroyed.failed.length, "resource")} could not be destroyed (${destroyed.failed.map((failure) => `${failure.name}: ${failure.message}`).join("; ")}).`,
			["Fix what the destroy command needs, then drop it again: what was destroyed is not destroyed twice."],
			{ data },
		);
	}
	return ok(
		"worktree drop",
		`Destroyed the resources of the gone worktree ${clip(quoteName(input.id))}: ${destroyed.destroyed.join(", ") || "none left"}.`,
		data,
	);
}

/**
 * What an earlier removal stopped halfway left: the rest of the folder (its
 * mark and place checked again), then git's record and the mark. The rest is
 * moved into the kept folder (state/kept.ts), never deleted: the mark is
 * sealed with a key an agent running as the same user can read, and the
 * path comes from git's admin files, which that agent can rewrite; so even a
 * folder that passes every check of worktree/remains.ts may be one the
 * person put there. A rename costs nothing on the same file system; on
 * another, the folder stays and the person is told.
 */
export async function finishRemoval(
	root: string,
	commonDir: string,
	target: FleetWorktree,
	plan: { worktreeRoot: string; others: readonly string[] },
): Promise<{ ok: true; kept: string } | { ok: false; reason: string }> {
	if (!target.gitDir || !(await wasDropping(commonDir, target.gitDir, target.path))) return { ok: false, reason: "no mark of an earlier removal names it" };
	if (await lstat(join(target.path, ".git")).catch(() => null)) return { ok: false, reason: "its `.git` file is back" };
	const refused = await remainsMayGo(root, commonDir, plan.worktreeRoot, target.path, plan.others);
	if (refused) return { ok: false, reason: refused };
	const kept = await new Keeper(commonDir).moveFolderAside(target.path, basename(target.path));
	if (!kept)
		return {
			ok: false,
			reason: `the rest of its folder could not be moved aside into ${quoteName(join(commonDir, "discern", "kept"))} (another file system?); nothing was deleted`,
		};
	const forgot = await forgetWorktree(root, commonDir, target);
	if (forgot.ok) await clearDropping(commonDir, target.gitDir).catch(() => undefined);
	return forgot.ok ? { ok: true, kept } : forgot;
}

/** A worktree whose folder is gone: remove git's admin files for it (what `git worktree prune` does for this one only). */
export async function forgetWorktree(root: string, commonDir: string, target: FleetWorktree): Promise<{ ok: true } | { ok: false; reason: string }> {
	const admin = target.gitDir;
	if (!admin || !isInside(join(commonDir, "worktrees"), admin) || admin === join(commonDir, "worktrees"))
		return { ok: false, reason: "git's admin dir for it is not where discern expects it" };
	if (await exists(target.path)) return { ok: false, reason: "its folder is back" };
	await rm(admin, { recursive: true, force: true });
	const listed = await listWorktrees(root, commonDir);
	return listed && !listed.some((entry) => entry.path === target.path) ? { ok: true } : { ok: false, reason: "git still lists it" };
}
