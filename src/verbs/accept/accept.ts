import { asVerb, fail, ok, type PlanItem } from "../../contract/envelope.ts";
import type { VerbContext } from "../../contract/context.ts";
import { takeLock } from "../../gate/lock.ts";
import { type ProofRecord, readProof } from "../../gate/state.ts";
import { trunkAuthority } from "../../gate/trunk-authority.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { git } from "../../git/run.ts";
import { ref, sayFor } from "../../hints/refer.ts";
import { openProject, openRepository } from "../../project/open.ts";
import { clip } from "../../text/clip.ts";
import { type ListedWorktree, listWorktrees } from "../../git/worktrees.ts";
import { done } from "../done/done.ts";
import { type Landing, readLanding } from "./consent.ts";
import { finish } from "./finish.ts";
import { type Journal, readJournal, removeJournal, writeJournal } from "./journal.ts";
import { checkoutProblem, commitOf, isAncestor } from "./land.ts";
import { type AcceptData, type AcceptInput, type AcceptResult, emptyData } from "./schema.ts";
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
		if (journal) {
			if (journal.state === "landed") return await resumeOrPreview(ctx, here, found.main, journal, input);
			// Written just before the compare-and-swap: the trunk says whether it happened.
			const trunkNow = await commitOf(here.root, `refs/heads/${journal.trunk}`);
			if (trunkNow && (trunkNow === journal.sha || (await isAncestor(here.root, journal.sha, trunkNow)) === true)) {
				return await resumeOrPreview(ctx, here, found.main, { ...journal, state: "landed", done: journal.done.includes("landed") ? journal.done : ["landed", ...journal.done] }, input);
			}
			if (!input.dry_run) await removeJournal(here.commonDir, target.branch);
		}
		return await land(ctx, input, here, found.main, target);
	} finally {
		if (locked?.ok) locked.lock.release();
	}
}

async function resumeOrPreview(ctx: VerbContext, here: RepositoryLocation, main: ListedWorktree, journal: Journal, input: AcceptInput): Promise<AcceptResult> {
	if (!input.dry_run) {
		await writeJournal(here.commonDir, journal);
		return finish(ctx, here, main.path, journal, true);
	}
	const left = ["checkout_moved", "noted", "resources_destroyed", "worktree_removed", "branch_deleted"].filter((step) => !journal.done.includes(step as Journal["done"][number]));
	const data: AcceptData = { ...emptyData(main.path), landed: true, sha: journal.sha, trunk: journal.trunk, previous_trunk_sha: journal.previous_trunk_sha, proof_line: journal.proof_line, consent: "resumed", remaining: left };
	return ok("accept", `\`${clip(journal.branch)}\` already landed on \`${clip(journal.trunk)}\`; accept would finish: ${left.join(", ") || "nothing"}.`, data, {
		dry_run: true,
		plan: left.map((step) => ({ kind: "step", label: step, disposition: "run" })),
	});
}

function short(sha: string | null): string {
	return sha ? sha.slice(0, 7) : "?";
}

async function land(ctx: VerbContext, input: AcceptInput, here: RepositoryLocation, main: ListedWorktree, target: Target): Promise<AcceptResult> {
	const say = sayFor(ctx.surface);
	const base = emptyData(main.path);
	const targetCtx: VerbContext = { ...ctx, cwd: target.path, repository: target.location };
	const project = await openProject(targetCtx);
	if (!project.ok) return asVerb("accept", project.refusal);
	const authority = await trunkAuthority(target.path, project.config, ctx.env.DISCERN_TRUNK);
	const { trunk } = authority;
	if (!trunk.name || !trunk.exists || !trunk.sha) {
		return fail("accept", "no_trunk", `There is no trunk branch to land on${trunk.name ? ` (\`${clip(trunk.name)}\` does not exist)` : ""}.`, ["Create the trunk branch, or set [repository].trunk in discern.toml on the trunk."], { data: base });
	}
	if (trunk.name === target.branch) {
		return fail("accept", "no_trunk", `This worktree is on the trunk \`${clip(trunk.name)}\` itself: there is nothing to land.`, ["Work on a branch of its own, then accept it."], { data: base });
	}
	const trunkSha = trunk.sha;
	const head = await commitOf(target.path, "HEAD");
	if (!head) return fail("accept", "dirty_worktree", "Nothing is committed in this worktree.", [say`Commit the work, then run ${ref("done")}.`], { data: base });
	const landing = await readLanding(target.path, trunkSha, head);
	const given = input.confirmed ? "confirmed" : landing.preAuthorized ? "pre_authorized" : null;
	const entries = (await listWorktrees(here.root, here.commonDir)) ?? [];
	const onTrunk = entries.filter((entry) => entry.branch === trunk.name && !entry.bare);
	const standing = await currentProof(target.location.gitDir, head);
	const facts = { ...base, sha: head, trunk: trunk.name, previous_trunk_sha: trunkSha, proof_line: standing?.line ?? null };
	const summary = summaryLines(target, trunk.name, trunkSha, head, landing);

	if (input.dry_run) {
		const plan: PlanItem[] = [
			{ kind: "consent", label: given ?? "needed", disposition: given ? "skip" : "run", note: given ? (given === "confirmed" ? "confirmed by the owner" : "every change is in a pre-authorized scope") : `ask the owner (${landing.why})` },
			{ kind: "gate", label: "done", disposition: standing ? "skip" : "run", note: standing ? "a current Proof covers HEAD" : "no current Proof: the gate runs" },
			{ kind: "land", label: `${trunk.name} ${short(trunkSha)} → ${short(head)}`, disposition: "run", note: `${landing.commitsTotal} commit${landing.commitsTotal === 1 ? "" : "s"}, ${landing.files.length} file${landing.files.length === 1 ? "" : "s"}` },
			...onTrunk.map((entry): PlanItem => ({ kind: "checkout", label: entry.path, disposition: "run", note: "on the trunk: its files move with it" })),
			{ kind: "note", label: "refs/notes/discern", disposition: "run" },
			{ kind: "cleanup", label: target.path, disposition: "run", note: "destroy resources, remove the worktree, delete the branch if it holds nothing more" },
		];
		return ok("accept", `Would land \`${clip(target.branch)}\` @ ${short(head)} on \`${clip(trunk.name)}\`; nothing changed.`, { ...facts, consent: given ?? "none" }, { dry_run: true, plan, hints: summary });
	}

	// 1. Consent before any git write: asked for here only when a person can answer.
	if (!given && !ctx.confirm) return awaitingConsent(ctx, here, target, facts, landing, standing?.line ?? null);

	// 2. A clean tree and a current Proof for HEAD: `done` reuses one, or runs the gate.
	const judged = await done(targetCtx, {});
	if (!judged.ok) {
		const error = judged.error === "behind_trunk" ? "trunk_moved" : judged.error;
		const hints: [string, ...string[]] = judged.error === "behind_trunk" ? [say`Run ${ref("update")}, then ${ref("done")}, then ${ref("accept")}.`] : [judged.hints[0] ?? say`Run ${ref("done")}.`, ...judged.hints.slice(1)];
		return fail("accept", error, `Nothing landed: ${judged.message}`, hints, { data: facts, ...(judged.diagnostics ? { diagnostics: judged.diagnostics } : {}) });
	}
	const proof = await readProof(target.location.gitDir);
	if (!proof || !judged.data?.proof || proof.head !== judged.data.proof.head || proof.head !== head) {
		return fail("accept", "gate_failed", "The Proof does not cover this worktree's HEAD (it moved, or the Proof could not be read back). Nothing landed.", [say`Run ${ref("done")}, then ${ref("accept")}.`], { data: facts });
	}
	const proven = { ...facts, proof_line: proof.line };
	const trunkNow = await commitOf(here.root, `refs/heads/${trunk.name}`);
	if (proof.judgement.trunk.name !== trunk.name || proof.judgement.trunk.sha !== trunkSha || trunkNow !== trunkSha) {
		return fail("accept", "trunk_moved", `The Proof was judged against \`${clip(proof.judgement.trunk.name ?? "?")}\` @ ${short(proof.judgement.trunk.sha)}, but the trunk \`${clip(trunk.name)}\` is at ${short(trunkNow)}. Nothing landed.`, [
			say`Run ${ref("update")}, then ${ref("done")}, then ${ref("accept")}.`,
		], { data: proven });
	}
	if (!given) {
		const preview = ok("accept", proof.line, proven, { dry_run: true, hints: summary });
		const yes = ctx.confirm ? await ctx.confirm(`Land \`${target.branch}\` @ ${short(head)} on \`${trunk.name}\`?`, preview) : false;
		if (!yes) return awaitingConsent(ctx, here, target, proven, landing, proof.line);
	}

	// 3. The trunk must be an ancestor of the proven commit: a fast-forward only.
	if ((await isAncestor(here.root, trunkSha, head)) !== true) {
		return fail("accept", "trunk_moved", `The trunk \`${clip(trunk.name)}\` has commits \`${clip(target.branch)}\` does not. Nothing landed.`, [say`Run ${ref("update")}, then ${ref("done")}, then ${ref("accept")}.`], { data: proven });
	}
	// A checkout on the trunk must be able to follow it before the trunk moves.
	for (const entry of onTrunk) {
		const problem = await checkoutProblem(entry.path, trunkSha, head);
		if (problem) {
			return fail("accept", "dirty_worktree", `Nothing landed: ${problem}.`, [say`Commit or clean up that checkout (\`git status\` there), then run ${ref("accept")} again.`], { data: proven });
		}
	}

	// 4. Compare-and-swap: the trunk moves to the proven commit only if it is still where it was judged.
	const journal: Journal = {
		version: 1,
		state: "landing",
		branch: target.branch,
		id: target.id,
		path: target.path,
		trunk: trunk.name,
		sha: head,
		previous_trunk_sha: trunkSha,
		proof_line: proof.line,
		proof,
		checkout: onTrunk[0]?.path ?? null,
		consent: given ?? "asked",
		done: [],
		destroyed: [],
		time: new Date().toISOString(),
	};
	await writeJournal(here.commonDir, journal);
	const swapped = await git(["update-ref", "-m", "discern accept", `refs/heads/${trunk.name}`, head, trunkSha], here.root);
	if (swapped.exitCode !== 0) {
		await removeJournal(here.commonDir, target.branch);
		const now = await commitOf(here.root, `refs/heads/${trunk.name}`);
		return fail("accept", "trunk_moved", `The trunk \`${clip(trunk.name)}\` moved while accept ran (now ${short(now)}, judged at ${short(trunkSha)}). Nothing landed.`, [
			say`Run ${ref("update")}, then ${ref("done")}, then ${ref("accept")}.`,
		], { data: proven });
	}
	const landed: Journal = { ...journal, state: "landed", done: ["landed"] };
	await writeJournal(here.commonDir, landed).catch(() => undefined);
	return finish(ctx, here, main.path, landed, false);
}

/** The Proof marker when it is for exactly `head` (done decides whether it is still current). */
async function currentProof(gitDir: string, head: string): Promise<ProofRecord | null> {
	const proof = await readProof(gitDir);
	return proof && proof.head === head ? proof : null;
}

function summaryLines(target: Target, trunk: string, trunkSha: string, head: string, landing: Landing): string[] {
	const commits = landing.commits.slice(0, 10).map((commit) => `${commit.sha.slice(0, 7)} ${clip(commit.subject, 120)}`);
	const files = landing.files.slice(0, 20).map((file) => clip(file, 200));
	return [
		`Lands \`${clip(target.branch)}\` @ ${short(head)} on \`${clip(trunk)}\` (now ${short(trunkSha)}).`,
		`Commits (${landing.commitsTotal}): ${commits.join("; ") || "none"}${landing.commitsTotal > commits.length ? "; …" : ""}`,
		`Files (${landing.files.length}): ${files.join(", ") || "none"}${landing.files.length > files.length ? ", …" : ""}`,
		`Scopes: ${landing.scopes.join(", ") || "none"}`,
	];
}

function awaitingConsent(ctx: VerbContext, here: RepositoryLocation, target: Target, data: AcceptData, landing: Landing, line: string | null): AcceptResult {
	const say = sayFor(ctx.surface);
	const proofSentence = line ? `${line}.` : "There is no current Proof for this HEAD yet.";
	return fail("accept", "awaiting_consent", `Landing \`${clip(target.branch)}\` needs the owner's consent (${landing.why}). ${proofSentence} Nothing changed.`, [
		line ? `Relay the Proof line to the owner verbatim: ${line}` : say`Run ${ref("done")} for a Proof, and relay its line to the owner.`,
		say`Once the owner approves this landing, run ${ref("accept", here.location === "main" ? { confirmed: true, target: target.branch } : { confirmed: true })}.`,
	], { data });
}
