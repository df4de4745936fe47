import { paint } from "../render/style.ts";
import { relativeTime } from "../text/relative-time.ts";
import { quoteName } from "../text/terminal.ts";
import type { WorktreeItem } from "./item.ts";

/** One worktree on one line: name, branch, tree, distance, Proof, last activity, path. */
export function worktreeLine(worktree: WorktreeItem, color: boolean, now = new Date()): string {
	const name = worktree.main ? "(main)" : quoteName(worktree.id ?? worktree.branch ?? "(detached)");
	const tree =
		(worktree.locked ? `${paint("locked", "yellow", color)} ` : "") +
		(worktree.problem
			? paint(worktree.problem, "yellow", color)
			: worktree.clean === null
				? paint("unknown", "yellow", color)
				: worktree.clean
					? paint("clean", "green", color)
					: paint("changed", "yellow", color));
	const distance = worktree.ahead !== null && worktree.behind !== null ? `+${worktree.ahead}/-${worktree.behind}` : "+?/-?";
	const proof = worktree.proof === "honored" ? paint("honored", "green", color) : worktree.proof === "red" ? paint("red", "red", color) : worktree.proof;
	const when = worktree.last_activity ? relativeTime(worktree.last_activity, now) : "";
	const branch = worktree.id !== null && worktree.branch !== null && worktree.branch !== worktree.id ? ` ${quoteName(worktree.branch)}` : "";
	return `  ${name}${branch}  ${tree}  ${distance}  proof ${proof}${when ? `  ${when}` : ""}\n      ${quoteName(worktree.path)}`;
}
