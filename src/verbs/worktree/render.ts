import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { relativeTime } from "../../text/relative-time.ts";
import { quoteName } from "../../text/terminal.ts";
import { paint } from "../../ui/style.ts";
import type { WorktreeItem } from "../../worktree/item.ts";
import type { WorktreeDropData, WorktreeListData, WorktreePruneData, WorktreeTeardownData } from "./schema.ts";

/** One worktree on one line: name, branch, tree, distance, Proof, last activity, path. */
export function worktreeLine(worktree: WorktreeItem, color: boolean, now = new Date()): string {
	const name = worktree.main ? "(main)" : quoteName(worktree.id ?? worktree.branch ?? "(detached)");
	const tree = worktree.problem ? paint(worktree.problem, "yellow", color) : worktree.clean === null ? paint("unknown", "yellow", color) : worktree.clean ? paint("clean", "green", color) : paint("changed", "yellow", color);
	const distance = worktree.ahead !== null && worktree.behind !== null ? `+${worktree.ahead}/-${worktree.behind}` : "+?/-?";
	const proof = worktree.proof === "honored" ? paint("honored", "green", color) : worktree.proof === "red" ? paint("red", "red", color) : worktree.proof;
	const when = worktree.last_activity ? relativeTime(worktree.last_activity, now) : "";
	const branch = worktree.id !== null && worktree.branch !== null && worktree.branch !== worktree.id ? ` ${quoteName(worktree.branch)}` : "";
	return `  ${name}${branch}  ${tree}  ${distance}  proof ${proof}${when ? `  ${when}` : ""}\n      ${quoteName(worktree.path)}`;
}

export function renderList(result: Result<"worktree list", WorktreeListData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	return [`trunk ${data.trunk ?? "(unknown)"}`, ...data.worktrees.map((worktree) => worktreeLine(worktree, color))].join("\n");
}

export function renderTeardown(result: Result<"worktree teardown", WorktreeTeardownData>, _options: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	return [...data.destroyed.map((name) => `  destroyed ${quoteName(name)}`), ...data.failed.map((failure) => `  failed    ${quoteName(failure.name)}: ${failure.message}`)].join("\n");
}

export function renderDrop(result: Result<"worktree drop", WorktreeDropData>, { color }: RenderOptions): string {
	const data = result.data;
	// A drop that happened says it all in its message (where the tip was saved, how to restore it).
	if (!data || (result.ok && !result.dry_run)) return "";
	return worktreeLine(data.worktree, color);
}

export function renderPrune(result: Result<"worktree prune", WorktreePruneData>, _options: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	return [
		...data.removed.map((entry) => `  removed ${quoteName(entry.path)}`),
		...data.would_remove.map((path) => `  remove  ${quoteName(path)}`),
		...data.skipped.map((entry) => `  keep    ${quoteName(entry.path)}: ${entry.reason}`),
	].join("\n");
}
