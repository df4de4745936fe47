import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, ok, type Result } from "../../contract/envelope.ts";
import { plural } from "../../text/plural.ts";
import { toItem } from "../../worktree/item.ts";
import { openFleet } from "./open.ts";
import type { WorktreeListData, WorktreeListInput } from "./schema.ts";

/** `worktree list`: every worktree of the repository, read-only. */
export async function worktreeList(ctx: VerbContext, _input: v.InferOutput<typeof WorktreeListInput>): Promise<Result<"worktree list", WorktreeListData>> {
	const opened = await openFleet(ctx);
	if (!opened.ok) return asVerb("worktree list", opened.refusal);
	const worktrees = opened.fleet.map(toItem);
	const data: WorktreeListData = { trunk: opened.trunk.exists ? opened.trunk.name : null, worktrees };
	if (!opened.listed) return ok("worktree list", "git could not list the worktrees of this repository.", data, { hints: ["Run `git worktree list` to see git's own words."] });
	const linked = worktrees.filter((worktree) => !worktree.main);
	const dirty = linked.filter((worktree) => worktree.clean !== true).length;
	return ok("worktree list", `${plural(linked.length, "linked worktree")} besides the main checkout${dirty > 0 ? `; ${dirty} not clean` : ""}.`, data);
}
