import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { diagnosticLines, joinLines, planLines, stepLines } from "../../render/result-lines.ts";
import { quoteName } from "../../text/terminal.ts";
import { worktreeLine } from "../../worktree/line.ts";
import type { WorktreeDropData, WorktreeEnsureData, WorktreeListData, WorktreePruneData, WorktreeTeardownData } from "./schema.ts";

export function renderList(result: Result<"worktree list", WorktreeListData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	return [
		`trunk ${data.trunk ?? "(unknown)"}`,
		...data.worktrees.map((worktree) => worktreeLine(worktree, color)),
		...data.orphaned_ledgers.map(
			(orphan) => `  ${quoteName(orphan.id)}  gone, resources left: ${orphan.resources.join(", ")}\n      ${quoteName(orphan.path)}`,
		),
	].join("\n");
}

export function renderTeardown(result: Result<"worktree teardown", WorktreeTeardownData>, _options: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	return [
		...data.destroyed.map((name) => `  destroyed ${quoteName(name)}`),
		...data.failed.map((failure) => `  failed    ${quoteName(failure.name)}: ${failure.message}`),
	].join("\n");
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

export function renderEnsure(result: Result<"worktree ensure", WorktreeEnsureData>, options: RenderOptions): string {
	return joinLines([...stepLines(result, options), ...planLines(result, options.color), ...diagnosticLines(result, options)]);
}
