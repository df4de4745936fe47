import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../render/style.ts";
import { plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";
import { CODE_MARKER, type ImpactData } from "./schema.ts";

/**
 * The touched scopes with their counts. A `has` question renders nothing:
 * its answer is the exit status (and `data.membership` under --json).
 */
export function renderImpact(result: Result<"impact", ImpactData>, { color, verbose }: RenderOptions): string {
	const data = result.data;
	if (!data || data.membership !== undefined) return "";
	const lines: string[] = [];
	if (!data.complete) lines.push(paint("incomplete change list: every scope counts as touched (failed open)", "yellow", color));
	const touched = new Set(data.scopes);
	const width = Math.max(0, ...data.per_scope.map((scope) => scope.scope.length));
	for (const scope of data.per_scope) {
		const mark = touched.has(scope.scope) ? paint("●", "cyan", color) : paint("·", "dim", color);
		const notes = [scope.neutral ? "neutral" : "", scope.gate ? "gate" : ""].filter(Boolean).join(", ");
		const count = plural(scope.paths, "path");
		lines.push(`${mark} ${scope.scope.padEnd(width)}  ${count}${notes ? paint(`  (${notes})`, "dim", color) : ""}`);
	}
	if (data.per_scope.length === 0) lines.push(paint("no scopes declared under [scopes]", "dim", color));
	if (touched.has(CODE_MARKER)) {
		const why = data.complete ? "a path outside every neutral scope changed" : "assumed, since the change list is incomplete";
		lines.push(`${paint("●", "cyan", color)} ${paint(CODE_MARKER, "bold", color)}  ${why}`);
	}
	lines.push(plural(data.changed, "changed path"));
	// The list itself is for a person who asked for detail; the counts answer the usual question.
	if (verbose) {
		for (const path of data.paths) lines.push(`  ${quoteName(path)}`);
		if (data.truncated) lines.push(`  … and ${data.changed - data.paths.length} more`);
	}
	return lines.join("\n");
}
