import * as v from "valibot";
import type { DiscernConfig } from "../../config/schema.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { gitLine } from "../../git/run.ts";
import { configDigest, readLastDone } from "../../jobs/last-run.ts";
import { judgeProof } from "../../proof/checkout-state.ts";
import { DoneData } from "../../proof/done-schema.ts";
import { judgementOf } from "../../proof/judgement.ts";
import { proofLine } from "../../proof/line.ts";
import { type ProofRecord, readProof, sameJudgement, writeProof } from "../../proof/record.ts";
import { scopesTouched } from "../../proof/scopes-touched.ts";
import { loosenings } from "../../standards/never-loosen.ts";
import { failing, verdictOf } from "../../standards/verdict.ts";
import type { ResolvedTrunk } from "../../trunk/resolve.ts";

/** The Proof of the commit a pin starts from, when `done` would honor it as it stands. */
export async function proofBefore(
	repository: RepositoryLocation,
	config: DiscernConfig,
	head: string,
	branch: string,
	authority: Promise<ResolvedTrunk>,
): Promise<ProofRecord | null> {
	const [proof, last, tree, { trunk }] = await Promise.all([
		readProof(repository.gitDir),
		readLastDone(repository.gitDir),
		gitLine(["rev-parse", "--verify", "--quiet", `${head}^{tree}`], repository.root),
		authority,
	]);
	const state = judgeProof(proof, last, { head, branch, clean: true, digest: configDigest(JSON.stringify(config)), trunk });
	return state.state === "honored" && proof && proof.tree === tree ? proof : null;
}

export interface Carried {
	/** The new Proof's line, or null when none was carried. */
	line: string | null;
	/** Why not, when not. */
	why: string;
}

/**
 * Carry a Proof across a pin. The pin's commit differs from the proven one
 * only in discern.toml, and there only in `standards.*.limit` numbers, each
 * tightened. Every job, scope gate and standard command is the same text,
 * run on the same files, so the gate would run the same commands; what the
 * limits change is only the standards' verdicts, and those are re-judged
 * here from the readings the proven run recorded: each must still meet its
 * new limit, or nothing carries. The judgement (trunk, scopes touched,
 * never-loosen, gate changes) is derived afresh for the new commit — the
 * commit adds discern.toml to the branch's changes, which may touch a scope —
 * and must equal the proven one; tightening a limit cannot loosen against
 * the trunk, and the check says so again. The new record names the new
 * commit, tree and config digest, and keeps the proven run's time and
 * duration: it claims nothing that did not run. (A project job that reads
 * the limits out of discern.toml is outside what a Proof describes, as it
 * is for `done`'s own reuse of a Proof.)
 */
export async function carryProof(
	repository: RepositoryLocation,
	config: DiscernConfig,
	head: string,
	branch: string,
	before: ProofRecord | null,
	authority: ResolvedTrunk,
	changes: readonly { name: string; after: number }[],
): Promise<Carried> {
	if (!before) return { line: null, why: "The previous commit had no honored Proof to carry over." };
	const { trunk } = authority;
	const readings = v.safeParse(DoneData.entries.standards, before.standards);
	if (!readings.success) return { line: null, why: "The previous Proof's readings could not be read." };
	const rejudged = readings.output.map((reading) => {
		const standard = config.standards[reading.name];
		const limit = standard?.limit ?? reading.limit;
		return reading.value === null || !standard ? reading : { ...reading, limit, verdict: verdictOf(standard, reading.value, limit) };
	});
	const unmet = rejudged.filter(failing).map((reading) => reading.name);
	const unread = changes.filter((change) => !rejudged.some((reading) => reading.name === change.name)).map((change) => change.name);
	if (unmet.length > 0 || unread.length > 0) {
		return { line: null, why: `The proven run's readings do not meet the new limits (${[...unmet, ...unread].join(", ")}), so its Proof does not carry over.` };
	}
	const [tree, scopes] = await Promise.all([
		gitLine(["rev-parse", "--verify", "--quiet", `${head}^{tree}`], repository.root),
		scopesTouched(repository.root, trunk, branch, head, config, { trunkConfig: authority.config }),
	]);
	// Rebuilt exactly as `done` builds it: the Proof carries over only while it judges the same.
	const judgement = judgementOf(trunk, branch, scopes, authority, config);
	const loosened = authority.config ? loosenings(authority.config.standards, config.standards) : [];
	if (!tree || loosened.length > 0 || !sameJudgement(judgement, before.judgement)) {
		return {
			line: null,
			why: "The new commit is judged differently from the proven one (the scopes it touches or its trunk), so its Proof does not carry over.",
		};
	}
	const record: ProofRecord = { ...before, head, tree, branch, config_digest: configDigest(JSON.stringify(config)), judgement, standards: rejudged, line: "" };
	record.line = proofLine(record);
	try {
		await writeProof(repository.gitDir, record);
	} catch {
		return { line: null, why: "The Proof could not be written to the checkout's state folder." };
	}
	return { line: record.line, why: "" };
}
