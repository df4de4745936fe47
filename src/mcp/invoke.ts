import type { RunFacts, VerbContext } from "../contract/context.ts";
import { recordInLogbook } from "../logbook/record.ts";
import { type AnyResult, fail } from "../contract/envelope.ts";
import type { LooseVerb } from "../contract/verb.ts";
import { cleanText } from "../text/terminal.ts";

/**
 * Run one verb core for the server. A bug becomes an `internal_error`
 * envelope: one failed call never takes the server down.
 */
export async function invokeVerb(verb: LooseVerb, ctx: VerbContext, input: unknown): Promise<{ result: AnyResult; text: string }> {
	try {
		const module = await verb.load();
		const facts: RunFacts = {};
		const startedAt = new Date();
		const result = await module.run({ ...ctx, facts }, input);
		await recordInLogbook(result, facts, "mcp", startedAt);
		const body = module.render(result, { color: false, verbose: false });
		return { result, text: textOf(result, body) };
	} catch (error) {
		process.stderr.write(`discern mcp: ${verb.name} crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		const result = fail(verb.name, "internal_error", `discern hit an internal error in ${verb.name}: ${error instanceof Error ? error.message : String(error)}.`, [
			"This is a bug in discern; the server logged the stack trace to stderr.",
		]);
		return { result, text: textOf(result, "") };
	}
}

/**
 * The concise text twin of a result for `content`: message, hints, then the
 * rendering. An agent reads it as text, so foreign text a core let through
 * loses its terminal sequences here, as on the CLI.
 */
export function textOf(result: AnyResult, body: string): string {
	const head = result.ok ? result.message : `${result.message} (${result.error})`;
	const hints = (result.hints ?? []).map((hint) => `- ${hint}`);
	return cleanText([head, ...hints, ...(body.trim() ? ["", body.trimEnd()] : [])].join("\n"));
}
