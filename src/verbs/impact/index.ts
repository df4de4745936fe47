import type { Result } from "../../contract/envelope.ts";
import { impact } from "./impact.ts";
import { renderImpact } from "./render.ts";
import type { ImpactData } from "./schema.ts";

/** `impact --has S` in a terminal or script: no output, exit 0 when touched, 1 when not (with --json the envelope says it). */
function silentMembership(result: Result<"impact", ImpactData>): 0 | 1 | null {
	const membership = result.ok ? result.data?.membership : undefined;
	return membership === undefined ? null : membership ? 0 : 1;
}

export const verb = { run: impact, render: renderImpact, silentExit: silentMembership };
