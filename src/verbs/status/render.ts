import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../render/style.ts";
import { wrap } from "../../text/layout.ts";
import { plural } from "../../text/plural.ts";
import { relativeTime } from "../../text/relative-time.ts";
import { quoteName } from "../../text/terminal.ts";
import { worktreeLine } from "../../worktree/line.ts";
import type { StatusData } from "./schema.ts";

export function renderStatus(result: Result<"status", StatusData>, { color, verbose, width }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	const lines = [
		`${paint(quoteName(data.project.name), "bold", color)}  ${data.location === "main" ? "main checkout" : "worktree"}  ${quoteName(data.root)}`,
		`  branch   ${data.branch !== null ? quoteName(data.branch) : paint("(detached)", "yellow", color)}${data.head ? ` @ ${data.head}` : ""}`,
		`  trunk    ${data.trunk.name ?? "(unknown)"}${data.trunk.exists ? "" : paint(" (missing)", "yellow", color)}${
			data.ahead !== null && data.behind !== null ? `  ahead ${data.ahead}, behind ${data.behind}` : ""
		}`,
		`  tree     ${data.clean === null ? paint("unknown", "yellow", color) : data.clean ? paint("clean", "green", color) : paint(`${data.changes.total} changed`, "yellow", color)}`,
	];
	const shown = verbose ? data.changes.files : data.changes.files.slice(0, 10);
	for (const file of shown) lines.push(`             ${file.kind.padEnd(10)} ${quoteName(file.path)}`);
	if (data.changes.total > shown.length) lines.push(`             … and ${data.changes.total - shown.length} more${verbose ? "" : " (--verbose lists more)"}`);
	lines.push(`  config   ${data.project.config}${data.project.config_issues > 0 ? ` (${plural(data.project.config_issues, "problem")})` : ""}`);
	const stages = Object.entries(data.jobs).filter(([, names]) => names.length > 0);
	lines.push(`  jobs     ${stages.length > 0 ? stages.map(([stage, names]) => `${stage}: ${names.join(", ")}`).join("  ") : "(none)"}`);
	lines.push(`  proof    ${data.proof.state}${data.proof.line && data.proof.state === "honored" ? `  ${data.proof.line}` : ""}`);
	if (data.last_run) {
		const run = data.last_run;
		lines.push(
			`  last run ${run.verb} ${run.ok ? paint("green", "green", color) : paint(`red (${run.failed_stage ?? "?"})`, "red", color)} ${relativeTime(run.time, new Date())}${run.head ? ` on ${run.head}` : ""}`,
		);
	}
	if (data.task) lines.push(`  task     ${quoteName(data.task.id)}${data.task.title ? `  ${quoteName(data.task.title)}` : ""}`);
	if (data.worktrees && data.worktrees.length > 0) {
		lines.push(`  fleet    ${plural(data.worktrees.length, "worktree")}`);
		for (const worktree of data.worktrees) lines.push(worktreeLine(worktree, color).replace(/^ {2}/gm, "         "));
	}
	for (const orphan of data.orphaned_ledgers ?? []) lines.push(`  gone     ${quoteName(orphan.id)}: resources left (${orphan.resources.join(", ")})`);
	// On a terminal the reason (a sentence or two) wraps under itself rather than breaking mid-word at the edge.
	const reason = width === undefined ? [`      ${data.next.reason}`] : wrap(data.next.reason, width, "      ");
	lines.push("", `${paint("next", "cyan", color)}  ${data.next.action}`, ...reason);
	return lines.join("\n");
}
