import type { Trunk } from "../git/trunk.ts";
import type { LastRun } from "../jobs/last-run.ts";
import type { FailedStage } from "../jobs/schema.ts";
import type { ProofRecord } from "./record.ts";

export const PROOF_STATES = ["honored", "stale", "missing", "red"] as const;
export type ProofStateName = (typeof PROOF_STATES)[number];

export interface ProofState {
	state: ProofStateName;
	line: string | null;
	failed_stage: FailedStage | null;
}

/** What a checkout is now, for judging its Proof: one checkout's status and the fleet read it alike. */
export interface CheckoutNow {
	head: string | null;
	branch: string | null;
	clean: boolean;
	/** The digest of the checkout's own valid config; null without one. */
	digest: string | null;
	trunk: Trunk;
}

/**
 * Does a green Proof cover exactly this HEAD, branch, clean tree and config,
 * judged against the trunk as it is now? `last` is the checkout's last
 * `done`: a red verdict on this HEAD reads `red`.
 */
export function judgeProof(proof: ProofRecord | null, last: LastRun | null, now: CheckoutNow): ProofState {
	const { head, clean } = now;
	const judgedAgainst = proof?.judgement.trunk;
	const current =
		proof !== null &&
		head !== null &&
		proof.head === head &&
		proof.branch === now.branch &&
		clean &&
		proof.config_digest === now.digest &&
		judgedAgainst?.name === now.trunk.name &&
		judgedAgainst?.sha === (now.trunk.sha ?? null);
	if (proof && current) return { state: "honored", line: proof.line, failed_stage: null };
	if (last && !last.ok && !last.standalone && last.head === head) return { state: "red", line: null, failed_stage: last.failed_stage };
	if (proof) return { state: "stale", line: proof.line, failed_stage: null };
	return { state: "missing", line: null, failed_stage: null };
}
