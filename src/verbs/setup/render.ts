import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../render/style.ts";
import { oneLine } from "../../text/terminal.ts";
import type { SetupData } from "./schema.ts";

export function renderSetup(result: Result<"setup" | "setup verify", SetupData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	if (data.verify) return renderVerification(data.verify, color);
	const lines: string[] = [];
	// Names and reasons come from the repository's files and folders: one line each, whatever they hold.
	for (const stack of data.stacks) lines.push(`stack  ${stack.kind}${stack.manager ? ` (${stack.manager})` : ""}  from ${oneLine(stack.evidence)}`);
	for (const job of data.jobs) {
		lines.push(`job    ${paint(job.name, "cyan", color)} [${job.stage}]  ${oneLine(job.run)}    # ${oneLine(job.reason)}`);
		if (job.note) lines.push(`       ${paint("note", "yellow", color)}: ${oneLine(job.note)}`);
	}
	for (const scope of data.scopes)
		lines.push(
			`scope  ${paint(scope.name, "cyan", color)}  ${oneLine(scope.paths.join(" "))}${scope.gate ? `  gate: ${oneLine(scope.gate)}` : ""}    # ${oneLine(scope.reason)}`,
		);
	for (const install of data.installs) {
		lines.push(`ensure ${paint(oneLine(install.run), "cyan", color)}    # ${oneLine(install.reason)}`);
		if (install.note) lines.push(`       ${paint("note", "yellow", color)}: ${oneLine(install.note)}`);
	}
	for (const seed of data.seeds) lines.push(`seed   ${paint(oneLine(seed.path), "cyan", color)}    # ${oneLine(seed.reason)}`);
	for (const ignore of data.ignores) lines.push(`ignore ${paint(oneLine(ignore.line), "cyan", color)}    # ${oneLine(ignore.reason)}`);
	for (const choice of data.agents) lines.push(`agent  ${paint(choice.agent, "cyan", color)}    # ${oneLine(choice.reason)}`);
	if (lines.length > 0) lines.push("");
	for (const file of data.files) lines.push(fileLine(file, data.written));
	if (!data.written && !data.config_exists) lines.push("", paint("Proposed discern.toml:", "bold", color), "", data.config_text.trimEnd());
	return lines.join("\n");
}

function fileLine(file: SetupData["files"][number], written: boolean): string {
	switch (file.action) {
		case "create":
			return `${written ? "wrote " : "create"} ${file.path}${file.reason ? `    # ${file.reason}` : ""}`;
		case "append":
			return `${written ? "added " : "append"} ${file.path}    # ${file.reason ?? ""}`;
		case "keep":
			return `keep   ${file.path}${file.reason ? `    # ${file.reason}` : ""}`;
		case "move":
			return `${written ? "moved " : "move  "} ${file.from} → ${file.path}    # ${file.reason ?? ""}`;
		case "remove":
			return `${written ? "removed" : "remove"} ${file.path}    # ${file.reason ?? ""}`;
	}
}

/** `setup verify` on a configured repository: the problems first, then the advice. */
function renderVerification(verify: NonNullable<SetupData["verify"]>, color: boolean): string {
	const lines: string[] = [verify.config === "valid" ? "config   discern.toml is valid" : `config   discern.toml is ${paint("invalid", "red", color)}`];
	for (const issue of verify.issues)
		lines.push(
			`${paint("invalid", "red", color)}  discern.toml${issue.line !== undefined ? `:${issue.line}${issue.col !== undefined ? `:${issue.col}` : ""}` : ""}  ${issue.message}`,
		);
	for (const check of verify.programs) {
		if (!check.found) lines.push(`${paint("missing", "red", color)}  ${check.program}  (${check.owner})  ${check.detail}`);
	}
	const found = verify.programs.filter((check) => check.found);
	const names = found.map((check) => (check.detail.startsWith("script ") ? `"${check.program}" script` : check.program));
	if (names.length > 0) lines.push(`found    ${[...new Set(names)].join(", ")}`);
	if (verify.also_proposed.length > 0) {
		if (lines.length > 0) lines.push("");
		for (const item of verify.also_proposed) {
			lines.push(
				item.kind === "ignore"
					? `setup would also add \`${item.line}\` to .gitignore: ${item.reason}`
					: `setup would also propose \`${item.line}\` (${item.reason})`,
			);
		}
	}
	return lines.join("\n");
}
