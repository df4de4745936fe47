import type { AnyResult } from "../contract/envelope.ts";
import type { RenderOptions } from "../contract/verbs.ts";
import { MARK, paint } from "../ui/style.ts";

export interface Streams {
	stdout: (text: string) => void;
	stderr: (text: string) => void;
}

/**
 * The one place a result reaches stdout. With --json it is the whole
 * output; otherwise the verb's rendering, then the message, error and hints.
 */
export function writeResult(
	result: AnyResult,
	streams: Streams,
	options: RenderOptions & { json: boolean; body: string },
): void {
	if (options.json) {
		streams.stdout(`${JSON.stringify(result)}\n`);
		return;
	}
	const lines: string[] = [];
	if (options.body.trim() !== "") lines.push(options.body.trimEnd());
	if (result.ok) {
		if (options.body.trim() === "" || result.dry_run) lines.push(result.message);
	} else {
		if (lines.length > 0) lines.push("");
		lines.push(`${paint(MARK.fail, "red", options.color)} ${result.message} ${paint(`(${result.error})`, "dim", options.color)}`);
	}
	for (const hint of result.hints ?? []) lines.push(`  ${paint("→", "cyan", options.color)} ${hint}`);
	streams.stdout(`${lines.join("\n")}\n`);
}
