import { rm } from "node:fs/promises";
import type { VerbContext } from "../../contract/context.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import { type Execution, executePlan } from "../../gate/execute.ts";
import { planGate, type PlannedJob } from "../../gate/plan.ts";
import type { LastRun, ProofRecord } from "../../gate/state.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { type BranchClues, decideTrunk } from "../../git/trunk.ts";

/**
 * The gate's jobs start as soon as the tree is known to be the commit —
 * the first look (which reads the files themselves) found no change, and
 * the discern.toml the jobs come from is the committed one — while the
 * rest of the judgement (index flags hiding files, the trunk's committed
 * config, the scopes, never-loosen, whether the branch contains the trunk)
 * is still being read: each of those is a git process, and the jobs are
 * what a person waits for.
 *
 * Nothing the jobs do can use that head start to earn a Proof: the first
 * look that vouched for the tree was taken before any job started, the
 * drift checks after each phase compare with it as ever, and the trunk's
 * watch starts from the branch list read before the jobs did. A refusal
 * from the rest of the judgement kills every job's tree and removes the
 * run's logs before `done` returns; a judgement naming another trunk than
 * the jobs were told (DISCERN_TRUNK) starts the run over.
 *
 * Not started where the answer may come without running (a Proof or a red
 * run recorded for this HEAD), for a dry run, or for a standalone run.
 */
export interface EarlyRun {
	/** The trunk named in the jobs' environment; the judgement must name the same. */
	trunk: string | null;
	/** Let the run go on with the judgement's checks; its execution as `executePlan` gives it. */
	admit(admission: Admission): Promise<Execution>;
	/** The judgement refused (or named another trunk): kill the jobs, forget the run. Nothing once admitted. */
	discard(): Promise<void>;
}

export interface Admission {
	/** The tree-drift and trunk check after each green phase. */
	afterPhase: (phase: readonly PlannedJob[]) => Promise<string | null>;
	/** Phases only the judgement decides (the changed scopes' gates). */
	later: PlannedJob[][];
}

export interface EarlyReads {
	clues: Promise<BranchClues>;
	initDefault: Promise<string | null>;
	proof: Promise<ProofRecord | null>;
	last: Promise<LastRun | null>;
}

export async function startEarly(
	ctx: VerbContext,
	repository: RepositoryLocation,
	config: DiscernConfig,
	head: string,
	reads: EarlyReads,
	rerun: boolean,
): Promise<EarlyRun | null> {
	const plan = planGate("done", config);
	if (plan.phases.length === 0) return null;
	const [clues, initDefault, proof, last] = await Promise.all([reads.clues, reads.initDefault, reads.proof.catch(() => null), reads.last.catch(() => null)]);
	if (!rerun && (proof?.head === head || (last && !last.ok && !last.standalone && last.head === head))) return null;
	// The trunk as `trunkAuthority` first names it; the rare trunk its committed config renames starts the run over.
	const trunk = decideTrunk({ ...clues, initDefault }, undefined, ctx.env.DISCERN_TRUNK).name;

	const stop = new AbortController();
	let decide: (admission: Admission | null) => void = () => undefined;
	const admission = new Promise<Admission | null>((resolve) => {
		decide = resolve;
	});
	let decided = false;
	const execution = executePlan({ ...ctx, signal: AbortSignal.any([ctx.signal, stop.signal]) }, repository, trunk, plan, {
		afterPhase: async (phase) => {
			const admitted = await admission;
			return admitted ? admitted.afterPhase(phase) : "the gate was refused";
		},
		laterPhases: async () => (await admission)?.later ?? [],
	});
	// Awaited by whoever admits or discards it; a failure is theirs to see, never unhandled.
	void execution.catch(() => undefined);
	return {
		trunk,
		admit: (admitted) => {
			decided = true;
			decide(admitted);
			return execution;
		},
		discard: async () => {
			if (decided) return;
			decided = true;
			decide(null);
			stop.abort("refused");
			const ran = await execution.catch(() => null);
			if (ran) await rm(ran.logDir, { recursive: true, force: true }).catch(() => undefined);
		},
	};
}
