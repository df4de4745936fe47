import type * as v from "valibot";
import { gatherFacts } from "../../coach/facts.ts";
import { byCategory, evaluate, nextRule, scoreOf } from "../../coach/rules.ts";
import { CATEGORIES, type Category } from "../../coach/schema.ts";
import { openProject } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { clip } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import type { ImprovementData, ImprovementInput } from "./schema.ts";

/** The practice coach: a score over deterministic rules, and the single most valuable next improvement. Read-only. */
export async function improvement(ctx: VerbContext, input: v.InferOutput<typeof ImprovementInput>): Promise<Result<"improvement", ImprovementData>> {
	const { say } = ctx;
	const category = input.category;
	if (category !== undefined && !(CATEGORIES as readonly string[]).includes(category)) {
		const suggestion = nearest(category, CATEGORIES);
		const every = `Categories: ${CATEGORIES.join(", ")}.`;
		return fail(
			"improvement",
			"unknown_category",
			`No category \`${clip(category)}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ""}`,
			suggestion ? [say`Did you mean ${ref("improvement", { category: suggestion })}?`, every] : [every],
		);
	}
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("improvement", opened.refusal);
	const facts = await gatherFacts(opened.repository, opened.config);
	const rules = evaluate(facts, ctx.say, category as Category | undefined);
	const next = nextRule(rules);
	const categories = byCategory(rules);
	const score = scoreOf(rules);
	const data: ImprovementData = {
		score,
		next: next ? { rule: next.rule.id, gain: next.gain, fix: next.rule.fix ?? next.rule.detail } : null,
		categories,
	};
	const scope = category === undefined ? "" : ` in ${category}`;
	const headline = `Score ${score}/100${scope}.`;
	if (input.min_score !== undefined && score < input.min_score) {
		const hints: [string, ...string[]] = data.next ? [`Next (+${data.next.gain}): ${data.next.fix}`] : ["Every applicable rule passes; lower the floor."];
		return fail("improvement", "below_min_score", `${headline} The minimum is ${input.min_score}.`, hints, { data });
	}
	return ok("improvement", data.next ? `${headline} Next (+${data.next.gain}): ${data.next.fix}` : `${headline} Every applicable rule passes.`, data);
}
