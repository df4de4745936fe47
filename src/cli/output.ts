import type { AnyResult } from "../contract/envelope.ts";
import { EXIT, type ExitCode } from "../contract/exit-codes.ts";
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

/** Errors that mean "you typed it wrong": exit 2, not 1. */
const USAGE_ERRORS: ReadonlySet<string> = new Set(["invalid_arguments", "unknown_command"]);

/** Write a result with its text (`body`, the verb's rendering) and return the exit code it earns: 0, 2 for a usage error, else 1. */
export function emit(result: AnyResult, body: string, streams: Streams, options: { json: boolean; color: boolean }): ExitCode {
	writeResult(result, streams, { ...options, verbose: false, body });
	if (result.ok) return EXIT.ok;
	return USAGE_ERRORS.has(result.error) ? EXIT.usage : EXIT.failure;
}
