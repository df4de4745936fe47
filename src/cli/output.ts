import type { AnyResult } from "../contract/envelope.ts";
import type { RenderOptions } from "../contract/verb.ts";
import { cleanText } from "../text/terminal.ts";
import { MARK, paint } from "../ui/style.ts";

export interface Streams {
	stdout: (text: string) => void;
	stderr: (text: string) => void;
}

/**
 * The one place a result reaches stdout. With --json it is the whole
 * output; otherwise the verb's rendering, then the message, error and hints.
 * Text is the last line of defense for a terminal: whatever foreign text a
 * core let through loses its terminal sequences and control characters here
 * (discern's own colors survive when color is on). JSON needs no such pass:
 * JSON.stringify escapes every control character.
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
	const body = cleanText(options.body, { keepColor: options.color });
	const message = cleanText(result.message);
	if (body.trim() !== "") lines.push(body.trimEnd());
	if (result.ok) {
		if (body.trim() === "" || result.dry_run) lines.push(message);
	} else {
		if (lines.length > 0) lines.push("");
		lines.push(`${paint(MARK.fail, "red", options.color)} ${message} ${paint(`(${result.error})`, "dim", options.color)}`);
	}
	for (const hint of result.hints ?? []) lines.push(`  ${paint("→", "cyan", options.color)} ${cleanText(hint)}`);
	streams.stdout(`${lines.join("\n")}\n`);
}
