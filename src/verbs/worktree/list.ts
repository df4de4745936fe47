import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";
import { toItem } from "../../worktree/item.ts";
import { orphanedLedgers } from "../../worktree/ledger.ts";
import { openFleet } from "./open.ts";
import type { WorktreeListData, WorktreeListInput } from "./schema.ts";

/** `worktree list`: every worktree of the repository, read-only. */
export async function worktreeList(ctx: VerbContext, _input: v.InferOutput<typeof WorktreeListInput>): Promise<Result<"worktree list", WorktreeListData>> {
	const { say } = ctx;
	const opened = await openFleet(ctx);
	if (!opened.ok) return asVerb("worktree list", opened.refusal);
	const worktrees = opened.fleet.map(toItem);
	const orphaned = opened.listed ? await orphanedLedgers(opened.repository.commonDir, opened.fleet) : [];
	const data: WorktreeListData = { trunk: opened.trunk.exists ? opened.trunk.name : null, worktrees, orphaned_ledgers: orphaned };
	if (!opened.listed)
		return ok("worktree list", "git could not list the worktrees of this repository.", data, { hints: ["Run `git worktree list` to see git's own words."] });
	const linked = worktrees.filter((worktree) => !worktree.main);
	const dirty = linked.filter((worktree) => worktree.clean !== true).length;
	const locked = linked.filter((worktree) => worktree.locked).length;
	const orphans = orphaned.length > 0 ? `; ${plural(orphaned.length, "gone worktree")} still ${orphaned.length === 1 ? "has" : "have"} resources` : "";
	const hints = orphaned.map(
		(orphan) => say`Run ${ref("worktree drop", { id: orphan.id, force: true })} to destroy what ${quoteName(orphan.id)} left (${orphan.resources.join(", ")}).`,
	);
	return ok(
		"worktree list",
		`${plural(linked.length, "linked worktree")} besides the main checkout${dirty > 0 ? `; ${dirty} not clean` : ""}${locked > 0 ? `; ${locked} locked` : ""}${orphans}.`,
		data,
		hints.length > 0 ? { hints } : {},
	);
}
