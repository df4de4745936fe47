import type * as v from "valibot";
import type { Result } from "../../contract/envelope.ts";
import type { SilentAnswer } from "../../contract/verb.ts";
import { clip } from "../../text/clip.ts";
import { oneLine } from "../../text/terminal.ts";
import { impact } from "./impact.ts";
import { renderImpact } from "./render.ts";
import type { ImpactData, ImpactInput } from "./schema.ts";

/**
 * `impact --has S` in a terminal or script: no output, exit 0 when touched,
 * 1 when not (with --json the envelope says it). When discern could not
 * answer — no repository, an invalid config, a scope it does not know, a
 * crash — the answer is 0 with a warning on stderr: `discern impact --has web
 * && run_web_tests` must run the tests rather than skip them on a guess (SPEC §8).
 */
function silentMembership(result: Result<"impact", ImpactData>, input: v.InferOutput<typeof ImpactInput>): SilentAnswer | null {
	if (input.has === undefined) return null;
	if (!result.ok) {
		return {
			code: 0,
			warning: `discern: could not tell whether \`${clip(oneLine(input.has))}\` is touched, so it counts as touched: ${clip(oneLine(result.message), 400)} (${result.error})`,
		};
	}
	const membership = result.data?.membership;
	return membership === undefined ? null : { code: membership ? 0 : 1 };
}

export const verb = { run: impact, render: renderImpact, silentExit: silentMembership };
