import type { CallerContext } from "../contract/context.ts";
import type { AnyResult } from "../contract/envelope.ts";
import type { LooseVerb } from "../contract/verb.ts";
import { composeText, invoke } from "../invoke.ts";
import { standardErr } from "../platform/streams.ts";

/**
 * Run one verb for the server through the shared pipeline (src/invoke.ts),
 * and its text twin for `content`. A crash is logged to stderr (stdout is
 * the protocol's) and becomes an `internal_error` envelope.
 */
export async function invokeVerb(
	verb: LooseVerb,
	ctx: CallerContext,
	input: unknown,
	currentRoot = ctx.cwd,
): Promise<{ result: AnyResult; text: string; workingRoot: string | null }> {
	const { result, module, crash } = await invoke(verb, ctx, input, ["mcp", verb.name]);
	if (crash) standardErr().write(`discern mcp: ${verb.name} crashed.${crash.report ? ` Crash report: ${crash.report}` : ""}\n`);
	const body = module && !crash ? module.render(result, { color: false, verbose: false }) : "";
	return { result, text: composeText(result, body), workingRoot: (!crash && module?.workingRoot?.(result, currentRoot)) || null };
}
