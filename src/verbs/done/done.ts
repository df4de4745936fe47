import * as v from "valibot";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import type { VerbContext } from "../../contract/context.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import { executePlan, failureSentence } from "../../gate/execute.ts";
import { lockCheckout } from "../../gate/lock.ts";
import { planGate, planItems, type PlannedJob } from "../../gate/plan.ts";
import type { FailedStage } from "../../gate/schema.ts";
import { configDigest, type ProofRecord, readLastDone, readProof, removeProof, writeLastRun, writeProof } from "../../gate/state.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { filesHiddenFromStatus, readWorkingState } from "../../git/repository.ts";
import { git, gitLine } from "../../git/run.ts";
import { readBranchClues, type Trunk } from "../../git/trunk.ts";
import { trunkAuthority } from "../../gate/trunk-authority.ts";
import { openProject } from "../../project/open.ts";
import { quoteName } from "../../text/terminal.ts";
import { readingsOf, standardDiagnostics } from "../../standards/readings.ts";
import { loosenings } from "../../standards/never-loosen.ts";
import { failing } from "../../standards/verdict.ts";
import { cleanSnapshot, pathsChanged, snapshotTree } from "../../gate/tree-state.ts";
import { scopesTouched } from "./scopes.ts";
import { DoneData, type DoneInput } from "./schema.ts";
import { proofLine, summaryOf } from "./proof.ts";

type DoneResult = Result<"done", DoneData>;

const base = (standalone: boolean): DoneData => ({
	failed_stage: null,
	scopes_changed: [],
	standards: [],
	gate_ran: false,
	proof: null,
	standalone,
	interrupted: false,
});

/**
 * The Gate: every stage on the exact committed tree, cheapest refusals
 * first; a green run on a clean, unmoved HEAD records a Proof.
 */
export async function done(ctx: VerbContext, input: v.InferOutput<typeof DoneInput>): Promise<DoneResult> {
	const standalone = input.standalone ?? false;
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("done", opened.refusal);
	const { repository, config } = opened;
	// Independent reads together: each git call is a process start.
	const branches = readBranchClues(repository.root);
	const [working, authority, clues, hidden] = await Promise.all([
		readWorkingState(repository.root),
		trunkAuthority(repository.root, config, ctx.env.DISCERN_TRUNK, branches),
		branches,
		standalone ? Promise.resolve([]) : filesHiddenFromStatus(repository.root),
	]);
	const { trunk } = authority;
	if (ctx.facts) Object.assign(ctx.facts, { branch: working?.branch ?? null, head: working?.head?.slice(0, 7) ?? null });

	// 1. The tree must be committed and on a branch.
	if (!working) {
		return fail("done", "dirty_worktree", "git could not report the working tree, so it cannot be trusted as clean.", ["Run `git status` and repair the repository."]);
	}
	if (working.head === null) return fail("done", "dirty_worktree", "Nothing is committed on this branch yet: the gate checks commits.", ["Commit the work, then run `discern done`."]);
	if (working.branch === null) return fail("done", "detached_head", `HEAD is detached at ${working.head.slice(0, 7)}: a Proof belongs to a branch.`, ["Switch to a branch (`git switch -c NAME`), then run `discern done`."]);
	if (working.changes.length > 0 && !standalone) {
		const names = working.changes.slice(0, 10).map((change) => quoteName(change.path));
		const more = working.changes.length > 10 ? ` and ${working.changes.length - 10} more` : "";
		return fail("done", "dirty_worktree", `The tree has uncommitted changes: ${names.join(", ")}${more}. The gate checks the exact committed tree.`, [
			"Commit (or stash) the changes, then run `discern done`.",
			"`discern done --standalone` runs the gate on the dirty tree for diagnosis, without a Proof.",
		]);
	}
	if (hidden === null || hidden.length > 0) {
		const names = hidden === null ? "git could not list the tracked files" : `${hidden.slice(0, 10).map(quoteName).join(", ")}${hidden.length > 10 ? ` and ${hidden.length - 10} more` : ""}`;
		return fail("done", "dirty_worktree", `git is told to ignore changes to some tracked files (${names}), so a clean status cannot vouch for the committed tree.`, [
			"Undo it with `git update-index --no-assume-unchanged FILE` / `--no-skip-worktree FILE` (or leave sparse checkout), then run `discern done`.",
			"`discern done --standalone` runs the gate as things are, without a Proof.",
		]);
	}
	const head = working.head;
	// The branch's tree came with the branch list; ask git only if the branch moved in between.
	const tree =
		clues.localBranches.get(working.branch) === head
			? (clues.trees.get(working.branch) ?? "")
			: ((await gitLine(["rev-parse", "--verify", "--quiet", "HEAD^{tree}"], repository.root)) ?? "");
	const digest = configDigest(JSON.stringify(config));

	// 2. An unchanged tree: reuse its Proof, or refuse to repeat a red run.
	if (!standalone) {
		const [proof, last] = await Promise.all([readProof(repository.gitDir), readLastDone(repository.gitDir)]);
		if (proof && proof.head === head && proof.tree === tree && proof.config_digest === digest && proof.branch === working.branch && !input.rerun) {
			const standards = v.is(DoneData.entries.standards, proof.standards) ? proof.standards : [];
			return ok("done", `${proof.line}; already proven, nothing ran.`, { ...base(false), gate_ran: false, proof: summaryOf(proof), standards }, {
				hints: ["Relay the Proof line; landing needs the owner's consent.", "`discern done --rerun` runs the gate again anyway."],
			});
		}
		if (last && !last.ok && !last.standalone && last.head === head && last.tree === tree && last.config_digest === digest && !input.rerun) {
			return fail("done", "unchanged_tree_rerun", `This exact tree already failed the gate (${last.failed_stage ?? "unknown"} stage, ${last.time}); running it again would say the same.`, [
				"Fix the failure and commit, then run `discern done`.",
				"If the failure was flaky, `discern done --rerun` runs it anyway.",
			], { data: { ...base(false), failed_stage: last.failed_stage } });
		}
	}

	// 3. In a worktree, the branch must contain the trunk.
	if (repository.location === "worktree" && trunk.exists && trunk.name) {
		const contained = await git(["merge-base", "--is-ancestor", `refs/heads/${trunk.name}`, "HEAD"], repository.root);
		if (contained.exitCode === 1) {
			return fail("done", "behind_trunk", `The trunk \`${trunk.name}\` has commits this branch does not: the gate must check the merged result.`, [
				"Run `discern update` to merge the trunk, then `discern done`.",
			]);
		}
	}

	// 4. Standards never loosen against the trunk's committed copy; nor may a branch pick another trunk.
	const scopes = await scopesTouched(repository.root, trunk, config);
	const loosened = authority.config ? loosenings(authority.config.standards, config.standards) : [];
	const ownTrunk = config.repository.trunk;
	if (ownTrunk && trunk.name && ownTrunk !== trunk.name && !ctx.env.DISCERN_TRUNK) {
		loosened.push(`[repository].trunk names \`${ownTrunk}\`, but the trunk is \`${trunk.name}\``);
	}
	if (loosened.length > 0) {
		return fail("done", "gate_failed", `This branch loosens what the trunk holds it to: ${loosened.join("; ")}.`, [
			"Standards only get better: restore the trunk's definitions and limits in discern.toml, commit, and run `discern done`.",
		], { data: { ...base(standalone), failed_stage: "standards", scopes_changed: scopes.touched } });
	}
	const unreadTrunk = [
		...(!authority.config && Object.keys(config.standards).length > 0 ? [`The never-loosen check was skipped: ${authority.unreadable ?? "the trunk's config is unreadable"}.`] : []),
		...(authority.namedByBranch ? [`Only this branch's own discern.toml names the trunk \`${trunk.name ?? "?"}\`; set DISCERN_TRUNK or commit discern.toml on the trunk.`] : []),
	];
	const plan = planGate("done", config, { scopesChanged: scopes.touched });
	if (input.dry_run) {
		return ok("done", `Would run ${plan.phases.flat().length} job(s); nothing ran.`, { ...base(standalone), scopes_changed: scopes.touched }, { dry_run: true, plan: planItems(plan) });
	}

	const locked = lockCheckout(repository, "done");
	if (!locked.ok) return asVerb("done", locked.refusal);
	try {
		return await runGate(ctx, {
			repository,
			config,
			trunk,
			head,
			tree,
			digest,
			standalone,
			scopesChanged: scopes.touched,
			branch: working.branch,
			plan,
			cleanAtStart: working.changes.length === 0,
			warnings: unreadTrunk,
		});
	} finally {
		locked.lock.release();
	}
}

interface GateRun {
	repository: RepositoryLocation;
	config: DiscernConfig;
	trunk: Trunk;
	head: string;
	tree: string;
	digest: string;
	standalone: boolean;
	scopesChanged: string[];
	branch: string;
	plan: ReturnType<typeof planGate>;
	/** A clean start needs no first fingerprint: there are no tracked changes. */
	cleanAtStart: boolean;
	/** Said loudly on every outcome (an unreadable trunk config). */
	warnings: string[];
}

async function runGate(ctx: VerbContext, run: GateRun): Promise<DoneResult> {
	const { repository } = run;
	let last = run.cleanAtStart ? cleanSnapshot(run.head, run.branch) : await snapshotTree(repository.root);
	let drift: { stage: string; files: string[] } | undefined;
	let phasesChecked = 0;
	// 7. Tree drift: after each green phase, no job may have changed the tree (tracked or untracked).
	const afterPhase = async (phase: readonly PlannedJob[]) => {
		const now = await snapshotTree(repository.root);
		phasesChecked++;
		const files = pathsChanged(last, now);
		last = now;
		if (files.length === 0) return null;
		drift = { stage: phase[0]?.stage ?? "", files };
		return `the ${drift.stage} stage changed the tree`;
	};
	const execution = await executePlan(ctx, repository, run.trunk.name, run.plan, afterPhase);
	const { report, steps, durationS } = execution;
	// The last phase's fingerprint already saw HEAD; ask git only when the run stopped before it.
	const sawEnd = phasesChecked === run.plan.phases.length && phasesChecked > 0;
	const [headAfter, readings] = await Promise.all([sawEnd ? last.head : gitLine(["rev-parse", "HEAD"], repository.root), readingsOf(report.runs, run.config)]);
	const diagnostics = [...execution.diagnostics, ...standardDiagnostics(readings, run.config)];
	const moved = headAfter !== run.head;
	const failedStage: FailedStage | null = report.failed
		? (report.failed.job.stage as FailedStage)
		: drift || moved
			? "tree_drift"
			: report.interrupted
				? null
				: readings.some(failing)
					? "standards"
					: null;
	const green = failedStage === null && !report.interrupted;
	const data: DoneData = {
		...base(run.standalone),
		scopes_changed: run.scopesChanged,
		gate_ran: true,
		failed_stage: failedStage,
		interrupted: report.interrupted,
		standards: readings.map(({ name, verdict, value, limit }) => ({ name, verdict, value, limit })),
		...(drift ? { drift } : {}),
	};

	// An interrupted run says nothing about the tree: it neither counts as red nor removes a Proof.
	if (!report.interrupted) {
		await writeLastRun(repository.gitDir, {
		verb: "done",
		ok: green,
		failed_stage: failedStage,
		head: run.head,
		tree: run.tree,
		config_digest: run.digest,
		standalone: run.standalone,
		time: new Date().toISOString(),
			duration_s: durationS,
		}).catch(() => undefined);
	}

	if (!green) {
		if (!run.standalone && !report.interrupted) await removeProof(repository.gitDir).catch(() => undefined);
		const message = drift
			? `The ${drift.stage} stage changed the tree: ${drift.files.slice(0, 10).map(quoteName).join(", ")}${drift.files.length > 10 ? ` and ${drift.files.length - 10} more` : ""}. The gate must leave the tree as committed.`
			: moved
				? "HEAD moved while the gate ran (a job committed?): the result does not describe one commit."
				: failedStage === "standards"
					? `Standards failed: ${readings.filter(failing).map((reading) => `${reading.name} ${reading.verdict}`).join(", ")}.`
					: `${failureSentence(report)}.`;
		const hints: [string, ...string[]] = report.interrupted
			? ["Nothing was decided: run `discern done` again when you are ready.", ...run.warnings]
			: drift
			? [
					`Run the ${drift.stage} jobs yourself (\`discern prepare\` for formatters), commit what they change, then \`discern done\`.`,
					"Files a job creates (build output, reports) belong in .gitignore.",
					...run.warnings,
				]
			: ["Read the diagnostics (each names the command to reproduce it), fix, commit, and run `discern done`.", ...run.warnings];
		return fail("done", "gate_failed", message, hints, { data, steps, diagnostics });
	}
	if (run.standalone) {
		return ok("done", `The gate passed on the working tree (${durationS} s), standalone: no Proof is issued for uncommitted work.`, data, {
			steps,
			hints: ["Commit, then run `discern done` for a Proof.", ...run.warnings],
		});
	}
	const record: ProofRecord = {
		version: 1,
		head: run.head,
		tree: run.tree,
		branch: run.branch,
		config_digest: run.digest,
		jobs: report.runs.filter((job) => job.outcome === "ok").map((job) => ({ label: job.job.label, stage: job.job.stage, duration_s: job.durationS })),
		standards: data.standards,
		time: new Date().toISOString(),
		duration_s: durationS,
		line: "",
	};
	record.line = proofLine(record);
	await writeProof(repository.gitDir, record);
	return ok("done", record.line, { ...data, proof: summaryOf(record) }, {
		steps,
		hints: ["Relay the Proof line verbatim; landing needs the owner's consent (`discern accept`).", ...run.warnings],
	});
}
