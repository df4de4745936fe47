import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../ui/style.ts";
import type { HelpData } from "./schema.ts";

export function renderHelp(result: Result<"help", HelpData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	if (data.verb) {
		const tool = data.verb.mcp_tool ? `\n\nMCP tool: ${data.verb.mcp_tool}` : "\n\nCLI only.";
		return `${data.verb.usage.trimEnd()}${tool}`;
	}
	const width = Math.max(...data.groups.flatMap((group) => group.verbs.map((verb) => verb.name.length)));
	const lines = [
		`${paint("discern", "bold", color)} — an engineering practice for coding agents: isolated tasks, a real gate, consent to land.`,
		"",
		"Usage: discern <verb> [flags]     Global flags: --json, --cwd DIR (-C), --version, --help",
	];
	for (const group of data.groups) {
		lines.push("", paint(group.name, "bold", color));
		for (const verb of group.verbs) lines.push(`  ${paint(verb.name.padEnd(width), "cyan", color)}  ${verb.summary}`);
	}
	lines.push("", "`discern help VERB` shows a verb's flags. `discern docs` is the manual.");
	return lines.join("\n");
}
