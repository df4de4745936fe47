import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { joinLines } from "../../render/result-lines.ts";
import { paint } from "../../render/style.ts";
import { quoteName } from "../../text/terminal.ts";
import type { UninstallData } from "./schema.ts";

/** Each path with its action and why; or, refused, what is in the way. */
export function renderUninstall(result: Result<"uninstall", UninstallData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	if (data.worktrees.length > 0)
		return joinLines(data.worktrees.map((worktree) => `  worktree  ${quoteName(worktree.path)}${worktree.branch ? `  (${worktree.branch})` : ""}`));
	if (data.resources.length > 0) return joinLines(data.resources.map((ledger) => `  ledger  ${quoteName(ledger)}`));
	const width = Math.max(0, ...data.files.map((file) => quoteName(file.path).length));
	const verb = (action: string) =>
		(data.removed ? ({ delete: "deleted", strip: "stripped", move: "moved", keep: "kept" }[action] ?? action) : action).padEnd(8);
	return joinLines(data.files.map((file) => `  ${verb(file.action)}  ${quoteName(file.path).padEnd(width)}  ${paint(file.note, "dim", color)}`));
}
