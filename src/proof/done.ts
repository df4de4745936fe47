import * as v from "valibot";
import { staleWiring } from "../agents/wiring.ts";
import { CONFIG_FILE, loadConfig } from "../config/load.ts";
import { configRefusal, openRepository } from "../config/open-project.ts";
import type { DiscernConfig } from "../config/schema.ts";
import type { VerbContext } from "../contract/context.ts";
import { asVerb, fail, ok } from "../contract/envelope.ts";
import { ref } from "../contract/refer.ts";
import { provenAncestor } from "../git/ancestry.ts";
import { type EvidenceIndex, type EvidenceOutcome, openEvidenceIndex } from "../git/evidence/evidence.ts";
import { removeAbandonedFolders } from "../git/evidence/private-folders.ts";
import { type ObjectReader, openObjectReader } from "../git/object-reader.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import { filesHiddenFromStatus, plainStatus, readHead } from "../git/repository.ts";
import { gitLine } from "../git/run.ts";
import { type BranchClues, readBranchClues, readInitDefault, type Trunk } from "../git/trunk.ts";
import { configDigest, readLastDone } from "../jobs/last-run.ts";
import { planGate, planItems } from "../jobs/plan.ts";
import { preloadSubreaper } from "../platform/subreaper.ts";
import { loosenings } from "../standards/never-loosen.ts";
import { plural } from "../text/plural.ts";
import { endSentence } from "../text/sentence.ts";
import { quoteName } from "../text/terminal.ts";
import { contestedVotes } from "../trunk/candidates.ts";
import { redTrunkSentence, refreshOnTrunk, trunkProofSentence } from "../trunk/on-the-trunk.ts";
import { type ResolvedTrunk, resolveTrunk } from "../trunk/resolve.ts";
import { committedConfigProblem } from "./committed-config.ts";
import { keepContent, recallContent } from "./content-ids.ts";
import { DoneData, type DoneInput } from "./done-schema.ts";
import { judgementOf } from "./judgement.ts";
import { summaryOf } from "./line.ts";
import { type ProofRecord, readProof, sameJudgement } from "./record.ts";
import { base, type DoneResult, runGate } from "./run-gate.ts";
import { scopesTouched } from "./scopes-touched.ts";
import { trunkWatchOf } from "./trunk-watch.ts";

/**
 * The Gate: every stage on the exact committed tree, cheapest refusals
 * first; a green run on a clean, unmoved HEAD records a Proof.
 */
export async function done(ctx: VerbContext, input: v.InferOutput<typeof DoneInput>): Promise<DoneResult> {
	const standalone = input.standalone ?? false;
	const located = await openRepository(ctx);
	if (!located.ok) return asVerb("done", located.refusal);
	const { repository } = located;
	// Independent reads together: each git call is a process start. Those that need no config start while it loads.
	// One object reader serves every read of hashed objects (the commit's trees, the trunk's config, ancestry, the scope diff).
	const reader = openObjectReader(repository.root);
	// The repository as found around the folder: the evidence starts on it and on the reader's HEAD while git confirms both.
	const firstLook = Promise.withResolvers<void>();
	// What an earlier run established about the files (sealed, this checkout's own): only files whose stat changed since are read.
	const known = recallContent(repository.gitDir, repository.root).catch(() => null);
	const evidenceOpened = openEvidenceIndex(repository.root, "HEAD", { reader, discovered: repository, asked: firstLook.resolve, known });
	const branches = readBranchClues(repository.root);
	// init.defaultBranch names the trunk only when neither DISCERN_TRUNK nor origin/HEAD does: asked then, once the branches are
	// read and git's first look is under way (starting a process holds up the one thread that starts the look's).
	const initDefault = Promise.all([branches, Promise.race([firstLook.promise, evidenceOpened])]).then(([clues]) =>
		ctx.env.DISCERN_TRUNK || clues.originHead ? null : readInitDefault(repository.root),
	);
	// Without a config nothing more is asked: the started reads end, and the evidence's private folder goes.
	// Settled, never rejected: a read that failed must not skip closing the evidence (its private folder) nor hide the refusal's own cause.
	const dropReads = () =>
		Promise.allSettled([evidenceOpened.then((opened) => (opened.ok ? opened.index.close() : undefined)), branches, initDefault]).then(() => reader.close());
	const load = await loadConfig(repository.root, ctx.narrate).catch(async (error: unknown) => {
		await dropReads();
		throw error;
	});
	if (load.state !== "valid") {
		await dropReads();
		return asVerb("done", configRefusal(load, ctx.say));
	}
	const { config, bytes: configBytes } = load;
	// Jobs will likely run: the subreaper's libc loads beside the reads instead of before the first job.
	void preloadSubreaper();
	const authorityRead = resolveTrunk(repository.root, config.repository.trunk, ctx.env.DISCERN_TRUNK, { branches, initDefault, reader, location: repository });
	// Reads of files that only a later step consults, started now: the git reads above are the long wait.
	const early = {
		proof: standalone ? null : readProof(repository.gitDir),
		last: standalone ? null : readLastDone(repository.gitDir),
		stale: staleWiring(repository.root, config, ctx.verbs),
	};
	// A step that refuses first never awaits the others: their failures surface where they are awaited, never as unhandled.
	for (const read of Object.values(early)) void read?.catch(() => undefined);
	// The trunk is first needed after the tree is judged clean: its reads go on while the first look reads the files.
	const trunkReads = Promise.all([authorityRead, branches]);
	void trunkReads.catch(() => undefined);
	const evidence = await evidenceOpened;
	// Once: the gate starts it after its last look, and whatever the outcome it is awaited here. The private folder goes while the reader ends.
	// Clean-up never decides a result: a private folder a job made unremovable stays behind in the temp folder, the verdict stands.
	let released: Promise<void> | undefined;
	const release = () =>
		(released ??= Promise.all([evidence.ok ? closeEvidence(repository, evidence.index) : undefined, reader.close()]).then(
			() => undefined,
			() => undefined,
		));
	try {
		return await judge(ctx, input, { repository, config, configBytes, evidence, reader, release, trunkReads, early, standalone });
	} finally {
		await release();
	}
}

/** The evidence's private folder goes; what its looks established about the files is kept for the next run (a failure to keep it costs only time). */
async function closeEvidence(repository: RepositoryLocation, index: EvidenceIndex): Promise<void> {
	const learned = index.learned();
	await Promise.all([index.close(), learned ? keepContent(repository.gitDir, repository.root, learned).catch(() => undefined) : undefined]);
}

interface Reads {
	repository: RepositoryLocation;
	config: DiscernConfig;
	configBytes: Uint8Array;
	/** Refused when git cannot build it or cannot be trusted to compare content here. */
	evidence: EvidenceOutcome;
	reader: ObjectReader;
	/** Ends the reader and the evidence (see `GateRun.release`). */
	release: () => Promise<void>;
	/** The trunk, and the branch list it was decided from (the baseline of the trunk's watch: `trunkWatchOf`). */
	trunkReads: Promise<[ResolvedTrunk, BranchClues]>;
	/** Started with the reads above, awaited where they are needed. */
	early: {
		proof: Promise<ProofRecord | null> | null;
		last: ReturnType<typeof readLastDone> | null;
		stale: ReturnType<typeof staleWiring>;
	};
	standalone: boolean;
}

async function judge(ctx: VerbContext, input: v.InferOutput<typeof DoneInput>, reads: Reads): Promise<DoneResult> {
	const { say } = ctx;
	const { repository, config, reader, standalone } = reads;
	// A standalone run never earns a Proof: where the evidence index is refused, the checkout's own status will do.
	const evidence = reads.evidence.ok ? reads.evidence.index : standalone && !reads.evidence.unborn ? plainStatus(repository.root) : null;
	// The commit's discern.toml, from the tree the evidence walked: the commit HEAD named in the same read as its branch,
	// which the first look reports (a HEAD that moves afterwards is drift, read again after the jobs).
	const configCheck = reads.evidence.ok ? committedConfigProblem(reads.evidence.index.committed(CONFIG_FILE), reads.configBytes) : null;
	// Without evidence the run is refused below: HEAD and the branch say how, and nothing reads the files.
	const working = evidence ? await evidence.status() : await readHead(repository.root).then((read) => (read ? { ...read, changes: [] } : null));

	// 1. The tree must be committed and on a branch.
	if (!working) {
		return fail("done", "dirty_worktree", "git could not report the working tree, so it cannot be trusted as clean.", [
			"Run `git status` and repair the repository.",
		]);
	}
	if (working.head === null)
		return fail("done", "dirty_worktree", "Nothing is committed on this branch yet: the gate checks commits.", [
			say`Commit the work, then run ${ref("done")}.`,
		]);
	if (working.branch === null)
		return fail("done", "detached_head", `HEAD is detached at ${working.head.slice(0, 7)}: a Proof belongs to a branch.`, [
			say`Switch to a branch (\`git switch -c NAME\`), then run ${ref("done")}.`,
		]);
	if (!evidence) {
		const why = reads.evidence.ok ? "" : reads.evidence.reason;
		return fail("done", "dirty_worktree", `The working tree cannot be vouched for as the commit: ${endSentence(why)}`, [
			say`Remove what the message names (or commit it in the tree), then run ${ref("done")}.`,
			say`${ref("done", { standalone: true })} runs the gate as things are, without a Proof.`,
		]);
	}
	if (working.changes.length > 0 && !standalone) {
		const names = working.changes.slice(0, 10).map((change) => quoteName(change.path));
		const more = working.changes.length > 10 ? ` and ${working.changes.length - 10} more` : "";
		// The evidence reads the files, not git's index: a change git's status hides (assume-unchanged, skip-worktree) is said so.
		const hidden = new Set((await filesHiddenFromStatus(repository.root)) ?? []);
		const unseen = working.changes.filter((change) => hidden.has(change.path)).map((change) => quoteName(change.path));
		return fail("done", "dirty_worktree", `The tree has uncommitted changes: ${names.join(", ")}${more}. The gate checks the exact committed tree.`, [
			say`Commit (or stash) the changes, then run ${ref("done")}.`,
			...(unseen.length > 0
				? [
						`\`git status\` does not show ${unseen.slice(0, 5).join(", ")}${unseen.length > 5 ? " and more" : ""}: git is told to ignore changes there (undo with \`git update-index --no-assume-unchanged FILE\` / \`--no-skip-worktree FILE\`, or leave sparse checkout).`,
					]
				: []),
			say`${ref("done", { standalone: true })} runs the gate on the dirty tree for diagnosis, without a Proof.`,
		]);
	}
	const head = working.head;
	const branch = working.branch;
	const [authority, clues] = await reads.trunkReads;
	const { trunk } = authority;
	// A trunk git could not read is no trunk to judge against, and not the absence of one (which would skip its checks).
	const unreadTrunk = !clues.readable ? "git could not list the branches" : authority.failed;
	if (unreadTrunk) {
		return fail("done", "no_trunk", `The gate cannot judge against the trunk: ${unreadTrunk}.`, [
			"Run `git fsck` and repair the repository (a missing or unreadable object), then run the gate again.",
		]);
	}
	// The trunk as the branch list read it, before any job ran: a job (or anyone) moving it from then on means no Proof against it.
	const trunkRefs = trunkWatchOf(clues, trunk.name);
	if (trunk.name && clues.symbolic.has(trunk.name)) {
		return fail("done", "no_trunk", `The trunk \`${trunk.name}\` is a symbolic ref to another branch: a trunk must be a branch of its own to judge against.`, [
			say`Make \`${trunk.name}\` a real branch again (\`git update-ref --no-deref refs/heads/${trunk.name} <commit>\`), then run ${ref("done")}.`,
		]);
	}
	// The tree the evidence read back from the commit (hashed); a standalone run without evidence asks git.
	// Whether the branch contains the trunk, proved once if asked: by the scope diff, and by the check in a worktree.
	let containment: Promise<boolean | null> | undefined;
	const contained = (trunkSha: string) => (containment ??= provenAncestor(repository.root, trunkSha, head, reader));
	const [tree, notCommitted, scopes, proof, last] = await Promise.all([
		reads.evidence.ok ? reads.evidence.index.tree : gitLine(["rev-parse", "--verify", "--quiet", `${head}^{tree}`], repository.root).then((line) => line ?? ""),
		standalone ? null : configCheck,
		scopesTouched(repository.root, trunk, branch, head, config, {
			reader,
			trunkConfig: authority.config,
			...(trunk.sha ? { contained: () => contained(trunk.sha as string) } : {}),
		}),
		reads.early.proof,
		reads.early.last,
	]);
	if (notCommitted) {
		return fail("done", "dirty_worktree", `The gate runs the jobs the commit declares, but ${notCommitted}.`, [
			say`Commit discern.toml as a regular file, then run ${ref("done")}.`,
			say`${ref("done", { standalone: true })} runs the gate as things are, without a Proof.`,
		]);
	}
	const digest = configDigest(JSON.stringify(config));
	const plan = planGate("done", config, { scopesChanged: scopes.touched });
	if (plan.phases.length === 0) {
		return fail("done", "nothing_to_prove", "discern.toml declares no job this gate could run: nothing declared, nothing proven.", [
			say`Run ${ref("setup")} to detect the stack and propose jobs, or declare them under [jobs] in discern.toml.`,
		]);
	}

	// The generated agent files must say what refresh would write now (only where agents are wired or AGENTS.md is discern's).
	const stale = await reads.early.stale;
	if (stale.length > 0) {
		const names = stale
			.slice(0, 5)
			.map((file) => `${file.path} (${file.blocked ? file.blocked.reason : file.action === "create" ? "missing" : "out of date"})`);
		const more = stale.length > 5 ? ` and ${stale.length - 5} more` : "";
		const blocker = stale.find((file) => file.blocked)?.blocked;
		// On the trunk nothing is committed by hand: the regenerated files are a task's change.
		const then = branch === trunk.name ? refreshOnTrunk(say) : null;
		const fix: [string, ...string[]] = blocker
			? [blocker.fix, then ?? say`Then run ${ref("refresh")}, commit, and run ${ref("done")}.`]
			: [then ?? say`Run ${ref("refresh")}, commit what it writes, then run ${ref("done")}.`];
		return fail("done", "gate_failed", `The agent instructions are stale: ${names.join(", ")}${more}.`, fix, {
			data: {
				...base(standalone),
				scopes_changed: scopes.touched,
				...(scopes.allBecause ? { all_scopes_because: scopes.allBecause } : {}),
				failed_stage: "instructions",
			},
		});
	}

	// 4 (computed early: the Proof depends on it). Standards never loosen against the trunk's committed copy; nor may a branch pick another trunk.
	const loosenedStandards = authority.config ? loosenings(authority.config.standards, config.standards) : [];
	const loosened = loosenedStandards.map((loosening) => loosening.text);
	const ownTrunk = config.repository.trunk;
	if (ownTrunk && trunk.name && ownTrunk !== trunk.name && !ctx.env.DISCERN_TRUNK) {
		loosened.push(`[repository].trunk names \`${ownTrunk}\`, but the trunk is \`${trunk.name}\``);
	}
	const judgement = judgementOf(trunk, branch, scopes, authority, config);
	const scopeFacts = { scopes_changed: scopes.touched, ...(scopes.allBecause ? { all_scopes_because: scopes.allBecause } : {}) };
	const warnings = [
		...(scopes.allBecause ? [`Every scope gate runs: ${scopes.allBecause}.`] : []),
		...(judgement.never_loosen === "skipped" && (Object.keys(config.standards).length > 0 || authority.invalid)
			? [
					trunk.name === branch
						? `The never-loosen check was skipped: this branch is the trunk \`${branch}\` itself, so there is nothing independent to compare its standards with.`
						: `WARNING: the never-loosen check was skipped: ${authority.unreadable ?? "the trunk's config is unreadable"}, so nothing stops this branch from loosening its standards.`,
				]
			: []),
		...(judgement.gate_changes.length > 0
			? [
					`This branch changes what the gate runs or what discern trusts, compared with the trunk \`${trunk.name ?? "?"}\`: ${judgement.gate_changes.join("; ")}. Whoever consents to landing should see this.`,
				]
			: []),
		...(authority.namedByBranch
			? [`Only this branch's own discern.toml names the trunk \`${trunk.name ?? "?"}\`; set DISCERN_TRUNK or commit discern.toml on the trunk.`]
			: []),
		...localTrunkWarning(trunk, clues),
		...contestedTrunkWarning(trunk, authority.contested),
	];

	// 2. An unchanged tree judged the same way: reuse its Proof, or refuse to repeat a red run.
	if (!standalone && !input.rerun) {
		const same =
			proof &&
			proof.head === head &&
			proof.tree === tree &&
			proof.config_digest === digest &&
			proof.branch === branch &&
			sameJudgement(proof.judgement, judgement);
		if (proof && same) {
			const standards = v.is(DoneData.entries.standards, proof.standards) ? proof.standards : [];
			return ok(
				"done",
				`${proof.line}; already proven, nothing ran.`,
				{ ...base(false), ...scopeFacts, gate_ran: false, proof: summaryOf(proof), standards },
				{
					hints: [
						branch === trunk.name ? trunkProofSentence(trunk.name) : "Relay the Proof line; landing needs the owner's consent.",
						say`${ref("done", { rerun: true })} runs the gate again anyway.`,
						...warnings,
					],
				},
			);
		}
		if (last && !last.ok && !last.standalone && last.head === head && last.tree === tree && last.config_digest === digest) {
			return fail(
				"done",
				"unchanged_tree_rerun",
				`This exact tree already failed the gate (${last.failed_stage ?? "unknown"} stage, ${last.time}); running it again would say the same.`,
				[
					branch === trunk.name ? redTrunkSentence(say, trunk.name) : say`Fix the failure and commit, then run ${ref("done")}.`,
					say`If the failure was flaky, ${ref("done", { rerun: true })} runs it anyway.`,
				],
				{ data: { ...base(false), failed_stage: last.failed_stage } },
			);
		}
	}

	// 3. In a worktree, the branch must contain the trunk.
	if (repository.location === "worktree" && trunk.exists && trunk.name && trunk.sha) {
		// Proved on hashed objects: git walks parents it never re-hashes (a forged commit could name the trunk as one).
		const holds = await contained(trunk.sha);
		if (holds === null) {
			return fail("done", "no_trunk", `discern could not prove whether this branch contains the trunk \`${trunk.name}\`.`, [
				"Run `git fsck` and repair the repository, then run the gate again.",
			]);
		}
		if (!holds) {
			return fail("done", "behind_trunk", `The trunk \`${trunk.name}\` has commits this branch does not: the gate must check the merged result.`, [
				say`Run ${ref("update")} to merge the trunk in (never a rebase), then ${ref("done")} again.`,
			]);
		}
	}

	if (loosened.length > 0) {
		return fail(
			"done",
			"gate_failed",
			`This branch loosens what the trunk holds it to: ${loosened.join("; ")}.`,
			[say`Standards only get better: restore the trunk's definitions and limits in discern.toml, commit, and run ${ref("done")}.`],
			{
				data: {
					...base(standalone),
					...scopeFacts,
					failed_stage: "standards",
					loosened: loosenedStandards.map(({ standard, field, before, after }) => ({ standard, field, before, after })),
				},
			},
		);
	}
	if (input.dry_run) {
		return ok(
			"done",
			`Would run ${plural(plan.phases.flat().length, "job")}; nothing ran.`,
			{ ...base(standalone), ...scopeFacts },
			{ dry_run: true, plan: planItems(plan), ...(warnings.length > 0 ? { hints: warnings } : {}) },
		);
	}

	// While the jobs run: the private folders gates killed outright left behind (private-folders.ts).
	const tidied = removeAbandonedFolders();
	try {
		return await runGate(ctx, {
			repository,
			config,
			trunk,
			head,
			tree,
			digest,
			standalone,
			judgement,
			branch,
			plan,
			evidence,
			release: reads.release,
			start: working,
			trunkRefs,
			warnings,
		});
	} finally {
		await tidied;
	}
}

/**
 * Committed discern.tomls that name different trunks (a decoy branch naming
 * itself beside the real trunk): the trunk was chosen by this checkout's
 * discern.toml or by order, and the Proof is judged against it. Said on every
 * run until DISCERN_TRUNK settles it or the decoy goes.
 */
function contestedTrunkWarning(trunk: Trunk, contested: ResolvedTrunk["contested"]): string[] {
	if (contested.length === 0) return [];
	const others = contestedVotes(contested);
	return [
		`Committed discern.tomls disagree on the trunk: ${others}; the Proof is judged against \`${trunk.name ?? "?"}\`. If that is not the trunk, set DISCERN_TRUNK, and remove the branch that names the wrong one.`,
	];
}

/**
 * init.defaultBranch and origin/HEAD live in the repository's own files,
 * which an agent (or a job) can write: one naming another branch than an
 * existing `main` or `master` may be a decoy, and the Proof is judged
 * against whatever it names. A trunk taken only because a branch called
 * `main` or `master` exists is no better: an agent can make one (beside a
 * trunk called `develop`, say), and neither this commit's discern.toml nor
 * that branch's own can vouch for it, both being the agent's to write.
 * Said on every run until DISCERN_TRUNK (or origin/HEAD) settles it.
 */
function localTrunkWarning(trunk: Trunk, clues: BranchClues): string[] {
	const judged = `the Proof is judged against \`${trunk.name ?? "?"}\``;
	if (trunk.source === "existing_branch") {
		return [
			`The trunk is \`${trunk.name ?? "?"}\` because a branch of that name exists: nothing outside the branches (DISCERN_TRUNK, origin/HEAD) names it, and ${judged}. Set DISCERN_TRUNK to name the trunk.`,
		];
	}
	if (trunk.source !== "init_default" && trunk.source !== "origin_head") return [];
	const usual = ["main", "master"].find((name) => name !== trunk.name && clues.localBranches.has(name));
	if (!usual) return [];
	const from = trunk.source === "init_default" ? "init.defaultBranch" : "origin/HEAD";
	return [
		`The trunk is \`${trunk.name ?? "?"}\`, as ${from} in this repository's own files says, though \`${usual}\` exists: ${judged}. If that is not the trunk, set DISCERN_TRUNK.`,
	];
}
