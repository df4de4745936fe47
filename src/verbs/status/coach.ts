import { gatherFacts } from "../../coach/facts.ts";
import { evaluate, nextRule, scoreOf } from "../../coach/rules.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import { ref, type SurfaceWords } from "../../contract/refer.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import type { StatusData } from "./schema.ts";

/**
 * When nothing more urgent applies — the main checkout is clean on the
 * trunk and the next action is to start a task — the coach's most valuable
 * improvement, as one hint. Only then: the coach reads more files than
 * `status` otherwise needs, and a person mid-task has better things to do.
 */
export async function coachHint(
	/** The caller's `ctx.say` and `ctx.action`. */
	{ say, action }: Pick<SurfaceWords, "say" | "action">,
	repository: RepositoryLocation,
	config: DiscernConfig,
	data: StatusData,
	head: string | null,
): Promise<string | null> {
	const idle = data.location === "main" && data.clean === true && data.next.action === action`${ref("start", { title: "TITLE" })}`;
	if (!idle) return null;
	const rules = evaluate(await gatherFacts(repository, config, { head }), say);
	const next = nextRule(rules);
	if (!next) return null;
	return say`When there is time, the practice coach suggests (+${next.gain}, score ${scoreOf(rules)}/100): ${next.rule.fix ?? next.rule.detail} ${ref("improvement")} says more.`;
}
