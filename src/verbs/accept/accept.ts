import { openProject, openRepository } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem, type Refusal } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { commitOf, provenAncestor } from "../../git/ancestry.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { consentSha } from "../../proof/consent-digits.ts";
import { done } from "../../proof/done.ts";
import { type ProofRecord, readProof } from "../../proof/record.ts";
import { Keeper } from "../../state/kept.ts";
import { takeLock } from "../../state/verb-lock.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";
import { candidateNamed, contestedVotes } from "../../trunk/candidates.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { type ListedWorktree, listWorktrees } from "../../worktree/git-worktrees.ts";
import { keptFor, leftFiles } from "../../worktree/left-files.ts";
import { keptReasons } from "../../worktree/person-files.ts";
import { readTask } from "../../worktree/task.ts";
import { againArgs, catchUpHint, short } from "./again.ts";
import { checkoutsOnTrunk, lockCheckouts } from "./checkouts.ts";
import { gateChangeSentence, type Landing, landingGateChanges, readLanding, standingConsentOnly, steeringLines, summaryLines } from "./consent.ts";
import { undoKilledLanding } from "./fast-forward.ts";
import { finish, settleEarlier } from "./finish.ts";
import { type Journal, journalWrite, readJournal, removeJournal, writeJournal } from "./journal.ts";
import { landingBlobs } from "./landing-bytes.ts";
import { type AcceptData, type AcceptInput, type AcceptResult, emptyData, landedData } from "./schema.ts";
import { storeRefusal, swap } from "./swap.ts";
import { findTarget, type Target } from "./target.ts";

/**
 * Land a worktree's proven commit on the trunk (SPEC §6): consent before
 * any git write, a current Proof for the exact HEAD judged against the
 * trunk as it is, a compare-and-swap of the trunk ref to that commit, the
 * Proof as a git note, then the worktree's cleanup, journalled so that
 * running accept again finishes an interrupted one and never lands twice.
 */
export async function accept(ctx: VerbContext, input: AcceptInput): Promise<AcceptResult> {
	const opened = await openRepository(ctx);
	if (!opened.ok) return asVerb("accept", opened.refusal);
	const here = opened.repository;
	const found = await findTarget(ctx, here, input.target);
	if (!found.ok) return asVerb("accept", found.refusal);
	if (found.journal) return resumeOrPreview(ctx, here, found.main, found.journal, input);
	const { target } = found;
	// From the main checkout the pipeline holds this checkout's and the repository's locks: the target's is taken here.
	const locked = !input.dry_run && here.location === "main" ? takeLock("checkout", target.location, "accept") : null;
	if (locked && !locked.ok) return asVerb("accept", locked.refusal);
	try {
		const journal = await readJournal(here.commonDir, target.branch);
		let earlier: string | null = null;
		if (journal) {
			// Written just before the trunk moves: the trunk says whether it happened.
			const trunkNow = await commitOf(here.root, `refs/heads/${journal.trunk}`);
			const landed =
				journal.state === "landed" || (trunkNow !== null && (trunkNow === journal.sha || (await provenAncestor(here.root, journal.sha, trunkNow)) === true));
			const settled: Journal = { ...journal, state: "landed", done: journal.done.includes("landed") ? journal.done : ["landed", ...journal.done] };
			if (landed) {
				const head = await commitOf(target.path, "HEAD");
				if (head === journal.sha) return await resumeOrPreview(ctx, here, found.main, settled, input);
				// The worktree went on after an earlier landing: finish what cannot lose work, keep the worktree, land the new HEAD anew.
				if (input.dry_run)
					earlier = `An earlier accept landed \`${clip(journal.branch)}\` @ ${journal.sha.slice(0, 7)}; its HEAD moved on since (now ${short(head)}), so the worktree stays and this is a new landing.`;
				else {
					const outcome = await settleEarlier(ctx, here, found.main.path, settled);
					if (!outcome.ok) return outcome.result;
					earlier = outcome.sentence;
				}
			} else if (!input.dry_run) {
				// A landing killed halfway (its git too): what it wrote in the checkout on the trunk goes before anything else.
				if (journal.checkout && trunkNow === journal.previous_trunk_sha) {
					const keeper = new Keeper(here.commonDir);
					const left = await undoKilledLanding(
						journal.checkout,
						journal.previous_trunk_sha,
						journal.sha,
						{
							started: Date.parse(journal.time),
							newFolders: journal.landing_new_folders ?? [],
							git: journal.landing_git ?? null,
						},
						keeper,
					);
					const kept = keeper.note();
					if (left)
						return fail(
							"accept",
							"dirty_worktree",
							`An earlier accept of \`${clip(journal.branch)}\` was stopped while it moved the files of the checkout at ${quoteName(journal.checkout)}, and they could not all be put back: ${left}. The trunk \`${clip(journal.trunk)}\` is still at ${short(trunkNow)}: nothing landed.${kept ? ` ${kept}` : ""}`,
							[
								ctx.say`Fix what the message names in that checkout (\`git status\` there), then run ${ref("accept", againArgs(ctx, here, target, !!input.confirmed))} again.`,
								...(kept ? [kept] : []),
							],
							{ data: emptyData(found.main.path) },
						);
					if (kept)
						earlier = `An earlier accept of \`${clip(journal.branch)}\` was stopped while it moved the files of the checkout at ${quoteName(journal.checkout)}; they were put back. ${kept}`;
				}
				const removed = await journalWrite(() => removeJournal(here.commonDir, target.branch));
				if (removed) return fail("accept", removed.error, removed.message, removed.hints, { data: emptyData(found.main.path) });
			}
		}
		const result = await land(ctx, input, here, found.main, target);
		return earlier ? withEarlier(result, earlier) : result;
	} finally {
		if (locked?.ok) locked.lock.release();
	}
}

function withEarlier(result: AcceptResult, sentence: string): AcceptResult {
	return { ...result, message: `${sentence} ${result.message}`, hints: [...(result.hints ?? []), sentence] } as AcceptResult;
}

async function resumeOrPreview(ctx: VerbContext, here: RepositoryLocation, main: ListedWorktree, journal: Journal, input: AcceptInput): Promise<AcceptResult> {
	if (!input.dry_run) {
		const denied = await journalWrite(() => writeJournal(here.commonDir, journal));
		if (denied)
			return fail("accept", denied.error, denied.message.replace(" Nothing landed.", ""), denied.hints, {
				data: { ...emptyData(main.path), landed: true, sha: journal.sha, trunk: journal.trunk },
			});
		return finish(ctx, here, main.path, journal, true);
	}
	const left = ["checkout_moved", "noted", "resources_destroyed", "worktree_removed", "branch_deleted"].filter(
		(step) => !journal.done.includes(step as Journal["done"][number]),
	);
	const data: AcceptData = { ...landedData(main.path, journal), consent: "resumed", remaining: left };
	return ok("accept", `\`${clip(journal.branch)}\` already landed on \`${clip(journal.trunk)}\`; accept would finish: ${left.join(", ") || "nothing"}.`, data, {
		dry_run: true,
		plan: left.map((step) => ({ kind: "step", label: step, disposition: "run" })),
	});
}

/** The dry run's cleanup step: what the worktree's folder holds beyond its commits is named, and an edited env file keeps it. */
async function cleanupStep(target: Target, mainPath: string): Promise<PlanItem> {
	const files = await leftFiles(target.path, target.location.gitDir, mainPath, await readTask(target.location.gitDir));
	if (files && keptFor(files))
		return {
			kind: "cleanup",
			label: target.path,
			disposition: "skip",
			note: `the worktree stays with its resources and branch: ${keptReasons({ edited_env: files.edited_env, repositories: files.nested_repositories }).join("; ")}`,
		};
	const ignored =
		files && files.ignored_count > 0 ? ` (deleting ${plural(files.ignored_count, "ignored file or folder", "ignored files or folders")} in it)` : "";
	return {
		kind: "cleanup",
		label: target.path,
		disposition: "run",
		note: `destroy resources, remove the worktree${ignored}, delete the branch if it holds nothing more`,
	};
}

function lockRefusal(refusal: Refusal, data: AcceptData): AcceptResult {
	const error = refusal.error === "write_denied" ? "write_denied" : "locked";
	return fail("accept", error, `${refusal.message.replace(/ Nothing was changed\.$/, "")} Nothing landed.`, refusal.hints as [string, ...string[]], { data });
}

async function land(ctx: VerbContext, input: AcceptInput, here: RepositoryLocation, main: ListedWorktree, target: Target): Promise<AcceptResult> {
	const { say } = ctx;
	const base = emptyData(main.path);
	const targetCtx: VerbContext = { ...ctx, cwd: target.path, repository: target.location };
	const project = await openProject(targetCtx);
	if (!project.ok) return asVerb("accept", project.refusal);
	const authority = await resolveTrunk(target.path, project.config.repository.trunk, ctx.env.DISCERN_TRUNK, { location: target.location });
	const { trunk } = authority;
	if (!trunk.name || !trunk.exists || !trunk.sha) {
		return fail(
			"accept",
			"no_trunk",
			`There is no trunk branch to land on${trunk.name ? ` (\`${clip(trunk.name)}\` does not exist)` : ""}.`,
			["Create the trunk branch, or set [repository].trunk in discern.toml on the trunk."],
			{ data: base },
		);
	}
	if (trunk.name === target.branch) {
		return fail(
			"accept",
			"no_trunk",
			`This worktree is on the trunk \`${clip(trunk.name)}\` itself: there is nothing to land.`,
			[
				say`A Proof on the trunk judges the trunk where it stands. Work to land is a task of its own: ${ref("start", { title: "TITLE" })} from the main checkout, then ${ref("done")} and ${ref("accept")} in its worktree.`,
			],
			{ data: base },
		);
	}
	// A branch anything else names as the trunk (origin/HEAD, a committed discern.toml, …) is never landed and deleted as a task's.
	const named = candidateNamed(await authority.candidates(), target.branch);
	if (named) {
		return fail(
			"accept",
			"no_trunk",
			`This worktree's branch \`${clip(target.branch)}\` is named as the trunk by ${named.namedBy.join(", ")}: it is not a task's branch to land on \`${clip(trunk.name)}\` and delete.`,
			["Work on a branch of its own, then accept it; or settle which branch is the trunk (DISCERN_TRUNK, [repository].trunk on the trunk)."],
			{ data: { ...base, trunk: trunk.name } },
		);
	}
	// Committed discern.tomls that name different trunks: the branch that won may be a decoy an agent made beside the real
	// trunk (its own discern.toml pre-authorizing everything). Nothing lands until a person settles it.
	if (authority.contested.length > 0) {
		const votes = contestedVotes(authority.contested);
		return fail(
			"accept",
			"no_trunk",
			`The committed discern.tomls disagree on the trunk: discern would land on \`${clip(trunk.name)}\`, but ${votes}. Nothing landed.`,
			[
				"Delete the branch that is not the trunk (or make its [repository].trunk agree), or name the trunk for this run with the DISCERN_TRUNK environment variable.",
			],
			{ data: { ...base, trunk: trunk.name } },
		);
	}
	const trunkSha = trunk.sha;
	const head = await commitOf(target.path, "HEAD");
	if (!head)
		return fail("accept", "dirty_worktree", "Nothing is committed in this worktree.", [say`Commit the work, then run ${ref("done")}.`], { data: base });
	// Nothing beyond the trunk: landing would move nothing and its note would land on a commit the trunk already had.
	if (head === trunkSha || (await provenAncestor(here.root, head, trunkSha)) === true) {
		return fail(
			"accept",
			"nothing_to_prove",
			`\`${clip(target.branch)}\` holds nothing beyond the trunk \`${clip(trunk.name)}\` (HEAD ${short(head)}, trunk ${short(trunkSha)}): there is nothing to land. Nothing changed.`,
			[say`Commit the work in the worktree at ${quoteName(target.path)}, run ${ref("done")}, then ${ref("accept", againArgs(ctx, here, target, false))}.`],
			{ data: { ...base, sha: head, trunk: trunk.name, previous_trunk_sha: trunkSha } },
		);
	}
	// Consent names a commit when the owner saw its Proof line: a commit made since is not what they approved.
	if (input.sha !== undefined && !head.startsWith(input.sha.toLowerCase())) {
		return fail(
			"accept",
			"awaiting_consent",
			`The owner's consent names ${clip(input.sha.toLowerCase())}, but \`${clip(target.branch)}\` is at ${consentSha(head)} now: that is not the commit they approved. Nothing changed.`,
			[
				say`Run ${ref("done")} for this commit's Proof, relay its line to the owner, and once they approve run ${ref("accept", { ...againArgs(ctx, here, target, true), sha: consentSha(head) })}.`,
			],
			{ data: { ...base, sha: head, trunk: trunk.name, previous_trunk_sha: trunkSha } },
		);
	}
	const landing = standingConsentOnly(await readLanding(target.path, trunkSha, head), authority.personNamed, trunk);
	const given = input.confirmed ? "confirmed" : landing.preAuthorized ? "pre_authorized" : null;
	const standing = await currentProof(target.location.gitDir, head);
	const facts = { ...base, sha: head, trunk: trunk.name, previous_trunk_sha: trunkSha, proof_line: standing?.line ?? null };
	const gateSentence = gateChangeSentence(landingGateChanges(standing?.judgement.gate_changes, landing));
	const summary = summaryLines(target, trunk.name, trunkSha, head, landing, gateSentence);

	if (input.dry_run) {
		// The refusals the landing itself would meet, predicted from the checkouts as they are now.
		const blockers = await checkoutsOnTrunk(here, trunk.name, trunkSha, head, ctx.signal);
		if (!blockers.ok) {
			return fail(
				"accept",
				blockers.error,
				`Accept would refuse: ${blockers.message}. Nothing changed.`,
				[say`Fix that, then run ${ref("accept", againArgs(ctx, here, target, !!input.confirmed))}.`, ...summary],
				{ data: { ...facts, consent: given ?? "none" } },
			);
		}
		const bytes = await landingBlobs(here.root, trunkSha, head, ctx.env);
		if (!bytes.ok)
			return storeRefusal(ctx, here, target, main.path, bytes.problem, { ...facts, consent: given ?? "none" }, { dryRun: true, confirmed: !!input.confirmed });
		const plan: PlanItem[] = [
			{
				kind: "consent",
				label: given ?? "needed",
				disposition: given ? "skip" : "run",
				note: given ? (given === "confirmed" ? "confirmed by the owner" : "every change is in a pre-authorized scope") : `ask the owner (${landing.why})`,
			},
			{
				kind: "gate",
				label: "done",
				disposition: standing ? "skip" : "run",
				note: standing ? "a current Proof covers HEAD" : "no current Proof: the gate runs",
			},
			{
				kind: "land",
				label: `${trunk.name} ${short(trunkSha)} → ${short(head)}`,
				disposition: "run",
				note: `${plural(landing.commitsTotal, "commit")}, ${plural(landing.files.length, "file")}`,
			},
			...(blockers.onTrunk
				? [
						{
							kind: "checkout",
							label: blockers.onTrunk.path,
							disposition: "run",
							note: "on the trunk: its files move with it (git merge --ff-only)",
						} satisfies PlanItem,
					]
				: []),
			{ kind: "note", label: "refs/notes/discern", disposition: "run" },
			await cleanupStep(target, main.path),
		];
		return ok(
			"accept",
			`Would land \`${clip(target.branch)}\` @ ${short(head)} on \`${clip(trunk.name)}\`; nothing changed.${gateSentence ? ` ${gateSentence}` : ""}`,
			{ ...facts, consent: given ?? "none" },
			{ dry_run: true, plan, hints: summary },
		);
	}

	// 1. Consent before any git write: asked for here only when a person can answer.
	if (!given && !ctx.confirm) return awaitingConsent(ctx, here, target, facts, landing, standing?.line ?? null, gateSentence);

	// 2. A clean tree and a current Proof for HEAD: `done` reuses one, or runs the gate.
	const judged = await done(targetCtx, {});
	if (!judged.ok) {
		const behind = judged.error === "behind_trunk";
		const hints: [string, ...string[]] = behind
			? [catchUpHint(ctx, here, target, !!input.confirmed)]
			: [judged.hints[0] ?? say`Run ${ref("done")}.`, ...judged.hints.slice(1)];
		return fail("accept", behind ? "trunk_moved" : judged.error, `Nothing landed: ${judged.message}`, hints, {
			data: facts,
			...(judged.diagnostics ? { diagnostics: judged.diagnostics } : {}),
		});
	}
	const proof = await readProof(target.location.gitDir);
	if (!proof || !judged.data?.proof || proof.head !== judged.data.proof.head || proof.head !== head) {
		return fail(
			"accept",
			"gate_failed",
			"The Proof does not cover this worktree's HEAD (it moved, or the Proof could not be read back). Nothing landed.",
			[say`Run ${ref("done")}, then ${ref("accept", againArgs(ctx, here, target, !!input.confirmed))}.`],
			{ data: facts },
		);
	}
	const proven = { ...facts, proof_line: proof.line };
	const provenGate = gateChangeSentence(landingGateChanges(proof.judgement.gate_changes, landing));
	const provenSummary = summaryLines(target, trunk.name, trunkSha, head, landing, provenGate);
	const trunkNow = await commitOf(here.root, `refs/heads/${trunk.name}`);
	if (proof.judgement.trunk.name !== trunk.name || proof.judgement.trunk.sha !== trunkSha || trunkNow !== trunkSha) {
		return fail(
			"accept",
			"trunk_moved",
			`The Proof was judged against \`${clip(proof.judgement.trunk.name ?? "?")}\` @ ${short(proof.judgement.trunk.sha)}, but the trunk \`${clip(trunk.name)}\` is at ${short(trunkNow)}. Nothing landed.`,
			[catchUpHint(ctx, here, target, !!input.confirmed)],
			{ data: proven },
		);
	}
	if (!given) {
		const preview = ok("accept", `${proof.line}${provenGate ? ` ${provenGate}` : ""}`, proven, { dry_run: true, hints: provenSummary });
		const yes = ctx.confirm
			? await ctx.confirm(`Land \`${target.branch}\` @ ${short(head)} on \`${trunk.name}\`?${provenGate ? ` ${provenGate}` : ""}`, preview)
			: false;
		if (!yes) return awaitingConsent(ctx, here, target, proven, landing, proof.line, provenGate);
	}

	// 3. The trunk must be an ancestor of the proven commit: a fast-forward only.
	if ((await provenAncestor(here.root, trunkSha, head)) !== true) {
		return fail(
			"accept",
			"trunk_moved",
			`The trunk \`${clip(trunk.name)}\` has commits \`${clip(target.branch)}\` does not. Nothing landed.`,
			[catchUpHint(ctx, here, target, !!input.confirmed)],
			{ data: proven },
		);
	}

	// 4. Under the locks of every checkout whose files may move (a gate running there is excluded),
	//    the checkouts on the trunk are read again right before it moves: the gate took minutes.
	const listed = (await listWorktrees(here.root, here.commonDir)) ?? [];
	const locked = await lockCheckouts(
		here,
		listed.filter((entry) => entry.main || entry.branch === trunk.name),
	);
	if (!locked.ok) return lockRefusal(locked.refusal, proven);
	try {
		const blockers = await checkoutsOnTrunk(here, trunk.name, trunkSha, head, ctx.signal);
		if (!blockers.ok) {
			const hint =
				blockers.error === "dirty_worktree"
					? say`Commit, finish or clean up there (\`git status\` in that checkout), then run ${ref("accept", againArgs(ctx, here, target, given === "confirmed"))} again.`
					: say`Fix that, then run ${ref("accept", againArgs(ctx, here, target, given === "confirmed"))} again.`;
			return fail("accept", blockers.error, `Nothing landed: ${blockers.message}.`, [hint], { data: proven });
		}
		const checkout = blockers.onTrunk;
		const late =
			checkout?.gitDir && !listed.some((entry) => entry.gitDir === checkout.gitDir && (entry.main || entry.branch === trunk.name))
				? await lockCheckouts(here, [checkout])
				: null;
		if (late && !late.ok) return lockRefusal(late.refusal, proven);
		try {
			return await swap(ctx, here, main, target, {
				trunk: trunk.name,
				trunkSha,
				head,
				proof,
				checkout,
				given,
				data: proven,
				again: againArgs(ctx, here, target, given === "confirmed"),
			});
		} finally {
			if (late?.ok) for (const lock of late.locks) lock.release();
		}
	} finally {
		for (const lock of locked.locks) lock.release();
	}
}

/** The Proof marker when it is for exactly `head` (done decides whether it is still current). */
async function currentProof(gitDir: string, head: string): Promise<ProofRecord | null> {
	const proof = await readProof(gitDir);
	return proof && proof.head === head ? proof : null;
}

function awaitingConsent(
	ctx: VerbContext,
	here: RepositoryLocation,
	target: Target,
	data: AcceptData,
	landing: Landing,
	line: string | null,
	gateSentence: string | null,
): AcceptResult {
	const { say } = ctx;
	const proofSentence = line ? `${line}.` : "There is no current Proof for this HEAD yet.";
	return fail(
		"accept",
		"awaiting_consent",
		`Landing \`${clip(target.branch)}\` needs the owner's consent (${landing.why}). ${gateSentence ? `${gateSentence} ` : ""}${proofSentence} Nothing changed.`,
		[
			line ? `Relay the Proof line to the owner verbatim: ${line}` : say`Run ${ref("done")} for a Proof, and relay its line to the owner.`,
			...(gateSentence ? [`Tell the owner plainly: ${gateSentence}`] : []),
			...steeringLines(landing),
			say`Once the owner approves this landing, run ${ref("accept", { ...againArgs(ctx, here, target, true), ...(data.sha ? { sha: consentSha(data.sha) } : {}) })}.`,
		],
		{ data },
	);
}
