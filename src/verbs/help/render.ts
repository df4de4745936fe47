import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../render/style.ts";
import { DEFAULT_COLUMNS, type Row, rows, wrap } from "../../text/layout.ts";
import type { HelpData, HelpFlag } from "./schema.ts";

const TAGLINE = "an engineering practice for coding agents: isolated tasks, a real gate, consent to land.";

/**
 * `discern help` and `discern help VERB` share one layout: a title, the
 * usage line, then titled sections of two-column rows, wrapped to the
 * terminal's width with one label column for the whole page.
 */
export function renderHelp(result: Result<"help", HelpData>, { color, width = DEFAULT_COLUMNS }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	const sections: Section[] = [];
	let head: string[];
	let foot: string[];
	if (data.family) {
		const family = data.family;
		head = [
			...title(`discern ${family.name}`, `${family.sub_commands.length} sub-commands.`, width, color),
			"",
			...wrap(`Usage: discern ${family.name} <sub-command> [flags]`, width, "", "  "),
		];
		sections.push({ name: "Sub-commands", kind: "verbs", rows: family.sub_commands.map((leaf) => ({ label: leaf.name, description: leaf.summary })) });
		foot = wrap(`\`discern help ${family.name} SUB-COMMAND\` shows one sub-command's flags.`, width);
	} else if (data.verb) {
		const verb = data.verb;
		head = [...title(`discern ${verb.name}`, verb.summary, width, color), "", ...wrap(`Usage: ${verb.usage}`, width, "", "  ")];
		if (verb.details) head.push("", ...wrap(verb.details, width));
		if (verb.arguments.length > 0)
			sections.push({
				name: "Arguments",
				kind: "options",
				rows: verb.arguments.map((argument) => ({ label: argument.name, description: argument.description })),
			});
		if (verb.flags.length > 0) sections.push({ name: "Flags", kind: "options", rows: flagRows(verb.flags) });
		if (data.global_flags.length > 0) sections.push({ name: "Global flags", kind: "options", rows: flagRows(data.global_flags) });
		if (verb.examples.length > 0)
			sections.push({ name: "Examples", kind: "examples", rows: verb.examples.map((example) => ({ label: example, description: "" })) });
		foot = [verb.mcp_tool ? `MCP tool: ${verb.mcp_tool}` : "CLI only."];
	} else {
		head = [...title("discern", TAGLINE, width, color), "", ...wrap("Usage: discern <verb> [flags]", width, "", "  ")];
		for (const group of data.groups)
			sections.push({ name: group.name, kind: "verbs", rows: group.verbs.map((verb) => ({ label: verb.name, description: verb.summary })) });
		sections.push({ name: "Global flags", kind: "options", rows: flagRows(data.global_flags) });
		foot = wrap("`discern help VERB` shows a verb's flags. `discern docs` is the manual.", width);
	}
	// Sections of one kind share a label column, so verbs line up across groups and flags across lists.
	const labelWidth = (kind: Section["kind"]) =>
		Math.max(0, ...sections.filter((section) => section.kind === kind).flatMap((section) => section.rows.map((row) => row.label.length)));
	const lines = [...head];
	for (const section of sections) {
		lines.push("", paint(section.name, "bold", color));
		// An example is a command to copy: a line of its own, continued further in when it must wrap.
		if (section.kind === "examples") for (const row of section.rows) lines.push(...wrap(row.label, width, "  ", "    "));
		else lines.push(...rows(section.rows, { width, indent: 2, labelWidth: labelWidth(section.kind), paintLabel: (label) => paint(label, "cyan", color) }));
	}
	lines.push("", ...foot);
	return lines.join("\n");
}

interface Section {
	name: string;
	kind: "verbs" | "options" | "examples";
	rows: Row[];
}

/** "discern done — The Gate: …", wrapped under itself. */
function title(name: string, text: string, width: number, color: boolean): string[] {
	const [first = "", ...rest] = wrap(`${name} — ${text}`, width);
	// Bold goes on the name only after wrapping, so it cannot shift a line break.
	const styled = first.startsWith(name) ? `${paint(name, "bold", color)}${first.slice(name.length)}` : first;
	return [styled, ...rest];
}

/** `-C, --cwd DIR` / `    --json`: long names line up when any flag of the list has a short alias. */
function flagRows(flags: readonly HelpFlag[]): Row[] {
	const aliased = flags.some((flag) => flag.alias !== null);
	return flags.map((flag) => {
		const long = `--${flag.name}${flag.value ? ` ${flag.value}` : ""}`;
		const label = flag.alias ? `-${flag.alias}, ${long}` : aliased ? `    ${long}` : long;
		return { label, description: flag.description };
	});
}
