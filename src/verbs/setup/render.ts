import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../ui/style.ts";
import type { SetupData } from "./schema.ts";

export function renderSetup(result: Result<"setup" | "setup verify", SetupData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	const lines: string[] = [];
	for (const stack of data.stacks) lines.push(`stack  ${stack.kind}${stack.manager ? ` (${stack.manager})` : ""}  from ${stack.evidence}`);
	for (const job of data.jobs) lines.push(`job    ${paint(job.name, "cyan", color)} [${job.stage}]  ${job.run}    # ${job.reason}`);
	if (lines.length > 0) lines.push("");
	for (const file of data.files) lines.push(`${file.action === "create" ? (data.written ? "wrote " : "create") : "keep  "} ${file.path}`);
	if (!data.written && !data.config_exists) lines.push("", paint("Proposed discern.toml:", "bold", color), "", data.config_text.trimEnd());
	return lines.join("\n");
}
