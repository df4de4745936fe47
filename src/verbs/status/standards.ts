import * as v from "valibot";
import type { DiscernConfig } from "../../config/schema.ts";
import { ref, type Say } from "../../contract/refer.ts";
import { DoneData } from "../../proof/done-schema.ts";
import type { ProofRecord } from "../../proof/record.ts";
import type { StatusData } from "./schema.ts";

/**
 * When nothing more urgent applies (a clean tree on a branch, no red gate,
 * not behind the trunk), the standards whose last green reading (the Proof's)
 * sits within its `margin` of the limit: one hint, so the next change that
 * costs coverage is not a surprise, worded with the caller's `ctx.say`.
 * Null when there is nothing to say.
 */
export function nearLimits(say: Say, facts: Omit<StatusData, "next">, config: DiscernConfig, proof: ProofRecord | null): string | null {
	const calm = facts.clean === true && facts.branch !== null && facts.proof.state !== "red" && (facts.behind ?? 0) === 0;
	if (!calm || !proof) return null;
	const readings = v.safeParse(DoneData.entries.standards, proof.standards);
	if (!readings.success) return null;
	const near = readings.output.flatMap((reading) => {
		const standard = config.standards[reading.name];
		if (!standard || reading.value === null) return [];
		const headroom = standard.direction === "up" ? reading.value - standard.limit : standard.limit - reading.value;
		return headroom >= 0 && headroom <= standard.margin
			? [`${reading.name} ${reading.value} (${standard.direction === "up" ? "floor" : "ceiling"} ${standard.limit})`]
			: [];
	});
	if (near.length === 0) return null;
	return say`Close to their limit at the last green gate: ${near.join(", ")}; ${ref("standards")} measures them now.`;
}
