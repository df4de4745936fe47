import { plural } from "../text/plural.ts";
import { consentSha } from "./consent-digits.ts";
import type { DoneData } from "./done-schema.ts";
import type { ProofRecord } from "./record.ts";

/**
 * "Proof: agent/fix-login-3f2a1c @ 1a2b3c4d5e6f passed format, lint, typecheck, test (4 jobs, 12.3 s)".
 * A branch that changed the gate itself says so in the line: the person
 * the line is relayed to decides on landing, and "passed test" means less
 * when the branch rewrote what `test` runs.
 */
export function proofLine(proof: Omit<ProofRecord, "line">): string {
	const labels = proof.jobs.map((job) => job.label);
	const passed = labels.length > 0 ? `passed ${labels.join(", ")}` : "passed (no jobs declared)";
	const changes = proof.judgement.gate_changes;
	const changed =
		changes.length > 0
			? `; this branch changes the gate: ${changes.slice(0, 3).join(", ")}${changes.length > 3 ? `, and ${changes.length - 3} more` : ""}`
			: "";
	return `Proof: ${proof.branch} @ ${consentSha(proof.head)} ${passed} (${plural(labels.length, "job")}, ${proof.duration_s} s${changed})`;
}

export function summaryOf(proof: ProofRecord): NonNullable<DoneData["proof"]> {
	return { line: proof.line, head: proof.head, tree: proof.tree, branch: proof.branch, trunk: proof.judgement.trunk, time: proof.time };
}
