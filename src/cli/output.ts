import type { AnyResult } from "../contract/envelope.ts";
import type { RenderOptions } from "../contract/verb.ts";
import { composeText } from "../invoke.ts";
import { MARK, paint } from "../render/style.ts";

export interface Streams {
	stdout: (text: string) => void;
	stderr: (text: string) => void;
}

/**
 * The one place a result reaches stdout. With --json it is the whole
 * output; otherwise its text (`composeText`, the same composition MCP
 * sends), painted for a terminal. JSON needs no cleaning pass:
 * JSON.stringify escapes every control character.
 */
export function writeResult(result: AnyResult, streams: Streams, options: RenderOptions & { json: boolean; body: string }): void {
	if (options.json) {
		streams.stdout(`${JSON.stringify(result)}\n`);
		return;
	}
	const { color } = options;
	const text = composeText(result, options.body, {
		failure: (message, error) => `${paint(MARK.fail, "red", color)} ${message} ${paint(`(${error})`, "dim", color)}`,
		hint: (hint) => `  ${paint("→", "cyan", color)} ${hint}`,
		alwaysMessage: false,
		keepColor: color,
	});
	streams.stdout(`${text}\n`);
}
