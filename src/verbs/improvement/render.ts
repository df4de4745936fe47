import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { MARK, paint } from "../../render/style.ts";
import type { ImprovementData } from "./schema.ts";

const GLYPH = { pass: [MARK.ok, "green"], partial: [MARK.warn, "yellow"], fail: [MARK.fail, "red"], skip: ["-", "dim"] } as const;

/** Score, the next action, then categories weakest first: each rule with its state and, unless it passes, its fix. */
export function renderImprovement(result: Result<"improvement", ImprovementData>, { color, verbose }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	const lines = [`${paint("score", "bold", color)}  ${data.score}/100`];
	if (data.next) lines.push(`${paint("next", "cyan", color)}   ${data.next.fix} (${data.next.rule}, +${data.next.gain})`);
	for (const category of data.categories) {
		lines.push("", `${paint(category.name, "bold", color)}  ${category.score}/100`);
		for (const rule of category.rules) {
			const [glyph, style] = GLYPH[rule.state];
			const quiet = (rule.state === "pass" || rule.state === "skip") && !verbose;
			lines.push(`  ${paint(glyph, style, color)} ${rule.id} (${rule.weight})${quiet ? "" : `: ${rule.detail}`}`);
			if (rule.fix && rule.state !== "pass") lines.push(`      fix: ${rule.fix}`);
		}
	}
	return lines.join("\n");
}
