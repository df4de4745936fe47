import type { DiscernConfig } from "../config/schema.ts";
import type { VerbContext } from "../contract/context.ts";
import { asVerb, fail, ok, type Result, type Step } from "../contract/envelope.ts";
import { ref } from "../contract/refer.ts";
import type { EvidenceIndex } from "../git/evidence/evidence.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import type { WorkingState } from "../git/status.ts";
import type { Trunk } from "../git/trunk.ts";
import { executePlan, failureSentence, machineFailures, machineFailureWords, worktreeSetupRemedy } from "../jobs/execute.ts";
import { writeLastRun } from "../jobs/last-run.ts";
import type { PlannedJob, planGate } from "../jobs/plan.ts";
import type { FailedStage } from "../jobs/schema.ts";
import { pathsChanged, snapshotOf } from "../jobs/tree-state.ts";
import { writeDenied } from "../platform/write-denied.ts";
import { readingsOf, standardDiagnostics } from "../standards/readings.ts";
import { failing } from "../standards/verdict.ts";
import { shellCommand } from "../text/shell-quote.ts";
import { quoteName } from "../text/terminal.ts";
import { redTrunkRemedy, redTrunkSentence, trunkProofSentence } from "../trunk/on-the-trunk.ts";
import type { DoneData } from "./done-schema.ts";
import { proofLine, summaryOf } from "./line.ts";
import { type Judgement, type ProofRecord, removeProof, writeProof } from "./record.ts";
import { sealer } from "./seal.ts";
import { readTrunkRefs, trunkWatchFrom, watchedRefs } from "./trunk-watch.ts";

/**
 * The gate's run once the judgement admitted it: the plan's phases with the
 * drift and trunk check after each, then the verdict (red, drift, the trunk
 * moved, interrupted) or the Proof, and the last run written either way.
 */

export type DoneResult = Result<"done", DoneData>;

/** done's data before anything is known: the shape every outcome starts from. */
export const base = (standalone: boolean): DoneData => ({
	failed_stage: null,
	scopes_changed: [],
	standards: [],
	gate_ran: false,
	proof: null,
	standalone,
	interrupted: false,
});

/**
 * The trunk moved while the gate ran (another worktree landed, someone
 * pushed): the tree is fine, but the judgement it would carry is about a
 * trunk that is gone. Not red (nothing failed), not a Proof: merge the new
 * trunk in and prove again.
 */
function trunkMovedDuringRun(ctx: VerbContext, run: GateRun, ran: { steps: Step[]; durationS: number; warnings: string[] }): DoneResult {
	const { say } = ctx;
	const name = run.trunk.name ?? "the trunk";
	const merge = run.trunk.name ? shellCommand("git", "merge", run.trunk.name) : "git merge TRUNK";
	const next =
		run.repository.location === "worktree"
			? say`Run ${ref("update")} to merge it in, then ${ref("done")} again.`
			: say`Merge \`${name}\` into this branch (\`${merge}\`), then run ${ref("done")} again.`;
	return fail(
		"done",
		"behind_trunk",
		`The trunk \`${name}\` moved while the gate ran (${ran.durationS} s); no Proof is issued against a trunk that is gone.`,
		[next, ...ran.warnings],
		{
			data: { ...base(run.standalone), scopes_changed: run.judgement.scopes_changed, gate_ran: true, failed_stage: null, interrupted: false, standards: [] },
			steps: ran.steps,
		},
	);
}

export interface GateRun {
	repository: RepositoryLocation;
	config: DiscernConfig;
	trunk: Trunk;
	head: string;
	tree: string;
	digest: string;
	standalone: boolean;
	judgement: Judgement;
	branch: string;
	plan: ReturnType<typeof planGate>;
	/** The evidence index (a standalone run's plain status where the index was refused). */
	evidence: Pick<EvidenceIndex, "status">;
	/** Ends the git readers and the evidence's private folder, never failing: called once the last look is taken (the caller awaits it too). */
	release: () => Promise<void>;
	/** The status read before the run: the first fingerprint. */
	start: WorkingState;
	/** The trunk's refs as read with the trunk the judgement names. */
	trunkRefs: string | null;
	/** Said loudly on every outcome (an unreadable trunk config, every scope gate running). */
	warnings: string[];
}

export async function runGate(ctx: VerbContext, run: GateRun): Promise<DoneResult> {
	const { say } = ctx;
	const { repository } = run;
	// The trunk itself under test: its Proof lands nothing, and its red is fixed in a task (trunk/on-the-trunk.ts).
	const onTrunk = run.trunk.name !== null && run.branch === run.trunk.name;
	// The Proof's seal key, read while the jobs run: the verdict need not wait on it (a failure surfaces where the Proof is written).
	const sealing = run.standalone ? null : sealer(repository.gitDir);
	void sealing?.catch(() => undefined);
	let last = await snapshotOf(repository.root, run.start);
	let drift: { stage: string; files: string[] } | undefined;
	let trunkMoved = false;
	// 7. Tree drift: after each green phase, no job may have changed the tree (tracked or untracked), HEAD or the branch.
	const { trunkRefs } = run;
	const afterPhase = async (phase: readonly PlannedJob[]) => {
		// The evidence's look reads the trunk's refs with HEAD; a plain status (a standalone run) cannot, and git is asked after it.
		// Each of the look's git reads is bounded as a command is (gate.timeout): a job cannot make the gate wait forever on git.
		const state = await run.evidence.status({ watch: watchedRefs(run.trunk.name), deadlineS: run.config.gate.timeout });
		// A look git could not answer fails as drift whatever the refs say: they are not read again, unbounded, after a read that was stopped.
		const refsNow =
			state === null
				? trunkRefs
				: state.watched !== undefined
					? trunkWatchFrom(state.watched, run.trunk.name)
					: await readTrunkRefs(repository.root, run.trunk.name);
		const now = await snapshotOf(repository.root, state);
		const files = pathsChanged(last, now);
		last = now;
		if (files.length > 0) {
			if (refsNow !== trunkRefs) files.unshift(`(the trunk \`${run.trunk.name ?? "?"}\` or origin/HEAD was moved)`);
			drift = { stage: phase[0]?.stage ?? "", files };
			return `the ${drift.stage} stage changed the tree`;
		}
		// The tree held, but the trunk moved (another worktree landed): what the Proof would be judged against is gone.
		if (refsNow !== trunkRefs) {
			trunkMoved = true;
			return "the trunk moved";
		}
		return null;
	};
	let execution: Awaited<ReturnType<typeof executePlan>>;
	try {
		execution = await executePlan(ctx, repository, run.trunk.name, run.plan, afterPhase);
	} catch (error) {
		const refusal = writeDenied(error, "the run's logs");
		if (refusal) return asVerb("done", refusal);
		throw error;
	}
	const { report, steps, durationS } = execution;
	// No look is taken after the plan: git's readers end while the verdict is put together and written.
	void run.release();
	// What a killed discern's jobs left running (and this run killed) is said on every outcome.
	const warnings = [...execution.leftovers, ...run.warnings];
	if (trunkMoved && !report.failed) return trunkMovedDuringRun(ctx, run, { steps, durationS, warnings });
	const readings = readingsOf(report.runs, run.config);
	const diagnostics = [...execution.diagnostics, ...standardDiagnostics(readings, run.config)];
	const failedStage: FailedStage | null = report.failed
		? (report.failed.job.stage as FailedStage)
		: drift
			? "tree_drift"
			: report.interrupted
				? null
				: readings.some(failing)
					? "standards"
					: null;
	const green = failedStage === null && !report.interrupted;
	const data: DoneData = {
		...base(run.standalone),
		scopes_changed: run.judgement.scopes_changed,
		...(run.judgement.all_scopes_because ? { all_scopes_because: run.judgement.all_scopes_because } : {}),
		gate_ran: true,
		failed_stage: failedStage,
		interrupted: report.interrupted,
		standards: readings.map(({ name, verdict, value, limit }) => ({ name, verdict, value, limit })),
		...(drift ? { drift } : {}),
	};

	// A program not found, not executable, or a job out of time: the machine's doing, so never the tree's red verdict.
	const atFault = report.interrupted ? [] : machineFailures(report);
	// An interrupted run says nothing about the tree: it neither counts as red nor removes a Proof.
	// Drift may have come from outside the gate (an editor): it is reported, never the commit's verdict.
	// Written while the verdict is put together (and the Proof written): a different file, awaited before any return.
	const lastRunWritten = report.interrupted
		? Promise.resolve()
		: writeLastRun(
				repository.gitDir,
				{
					verb: "done",
					ok: green,
					failed_stage: failedStage,
					head: run.head,
					tree: run.tree,
					config_digest: run.digest,
					standalone: run.standalone,
					time: new Date().toISOString(),
					duration_s: durationS,
				},
				{ verdict: !drift && atFault.length === 0 },
			).catch(() => undefined);

	if (!green) {
		await lastRunWritten;
		if (!run.standalone && !report.interrupted && !drift) await removeProof(repository.gitDir).catch(() => undefined);
		const message = drift
			? `The ${drift.stage} stage changed the tree: ${drift.files.slice(0, 10).map(quoteName).join(", ")}${drift.files.length > 10 ? ` and ${drift.files.length - 10} more` : ""}. The gate must leave the tree as committed.`
			: failedStage === "standards"
				? `Standards failed: ${readings
						.filter(failing)
						.map((reading) => `${reading.name} ${reading.verdict}`)
						.join(", ")}.`
				: `${failureSentence(report)}.`;
		const hints: [string, ...string[]] = report.interrupted
			? [say`Nothing was decided: run ${ref("done")} again when you are ready.`, ...warnings]
			: drift
				? [
						onTrunk
							? `The ${drift.stage} jobs change what the trunk holds. ${redTrunkRemedy(say)}`
							: say`Run the ${drift.stage} jobs yourself (${ref("prepare")} for formatters), commit what they change, then ${ref("done")}.`,
						"Files a job creates (build output, reports) belong in .gitignore; a job must not commit, switch branch or detach HEAD.",
						say`If something outside the gate (an editor, another tool) made the change, restore the tree and run ${ref("done")} again.`,
						...warnings,
					]
				: atFault.length > 0
					? [
							say`${atFault.map(machineFailureWords).join("; ")}. That is the machine, not the tree: install the program or fix PATH (or [gate].timeout), then run ${ref("done")} again; this failure is not recorded as the tree's verdict.`,
							...worktreeSetupRemedy(say, report, repository.location, run.config.worktree.setup),
							onTrunk
								? `Read the diagnostics (each names the command to reproduce it); if the tree is at fault, the trunk is red. ${redTrunkRemedy(say)}`
								: say`Read the diagnostics (each names the command to reproduce it); if the tree is at fault, fix, commit, and run ${ref("done")}.`,
							...warnings,
						]
					: onTrunk
						? [`Read the diagnostics (each names the command to reproduce it). ${redTrunkSentence(say, run.trunk.name)}`, ...warnings]
						: [say`Read the diagnostics (each names the command to reproduce it), fix, commit, and run ${ref("done")}.`, ...warnings];
		return fail("done", report.interrupted ? "interrupted" : "gate_failed", message, hints, { data, steps, diagnostics });
	}
	if (run.standalone) {
		await lastRunWritten;
		return ok("done", `The gate passed on the working tree (${durationS} s), standalone: no Proof is issued for uncommitted work.`, data, {
			steps,
			hints: [say`Commit, then run ${ref("done")} for a Proof.`, ...warnings],
		});
	}
	const record: ProofRecord = {
		version: 2,
		head: run.head,
		tree: run.tree,
		branch: run.branch,
		config_digest: run.digest,
		judgement: run.judgement,
		jobs: report.runs.filter((job) => job.outcome === "ok").map((job) => ({ label: job.job.label, stage: job.job.stage, duration_s: job.durationS })),
		standards: data.standards,
		time: new Date().toISOString(),
		duration_s: durationS,
		line: "",
	};
	record.line = proofLine(record);
	try {
		await Promise.all([writeProof(repository.gitDir, record, sealing ?? undefined), lastRunWritten]);
	} catch (error) {
		const refusal = writeDenied(error, "the Proof");
		if (!refusal) throw error;
		return fail("done", "write_denied", `The gate passed (${durationS} s), but no Proof is recorded: ${refusal.message}`, refusal.hints, { data, steps });
	}
	return ok(
		"done",
		record.line,
		{ ...data, proof: summaryOf(record) },
		{
			steps,
			hints: [onTrunk ? trunkProofSentence(run.trunk.name) : "Relay the Proof line verbatim; landing it on the trunk needs the owner's consent.", ...warnings],
		},
	);
}
