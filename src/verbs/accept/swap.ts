import type { VerbContext } from "../../contract/context.ts";
import { fail } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { commitOf } from "../../git/ancestry.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { processStart } from "../../platform/process-start.ts";
import type { ProofRecord } from "../../proof/record.ts";
import { Keeper } from "../../state/kept.ts";
import { clip } from "../../text/clip.ts";
import { firstLine } from "../../text/first-line.ts";
import { quoteName } from "../../text/terminal.ts";
import type { ListedWorktree } from "../../worktree/git-worktrees.ts";
import { againArgs, catchUpHint, short } from "./again.ts";
import { fastForwardCheckout, writtenPaths } from "./fast-forward.ts";
import { finish } from "./finish.ts";
import { type Journal, journalWrite, removeJournal, writeJournal } from "./journal.ts";
import { pinnedGit } from "./land.ts";
import { landingBlobs, writtenFilesProblem } from "./landing-bytes.ts";
import type { AcceptData, AcceptInput, AcceptResult } from "./schema.ts";
import type { Target } from "./target.ts";

export interface Swap {
	trunk: string;
	trunkSha: string;
	head: string;
	proof: ProofRecord;
	checkout: ListedWorktree | null;
	given: "confirmed" | "pre_authorized" | null;
	data: AcceptData;
	again: Partial<AcceptInput>;
}

/**
 * The trunk moves to the proven commit only if it is still where it was
 * judged: through the checkout that has it checked out (its files and the
 * ref move together, under git's index lock), else by a compare-and-swap of
 * the ref alone. Read back afterwards: the trunk must now be the proven sha.
 */
export async function swap(ctx: VerbContext, here: RepositoryLocation, main: ListedWorktree, target: Target, s: Swap): Promise<AcceptResult> {
	const { say } = ctx;
	const ref_ = `refs/heads/${s.trunk}`;
	const before = await commitOf(here.root, ref_);
	if (before !== s.trunkSha) {
		return fail(
			"accept",
			"trunk_moved",
			`The trunk \`${clip(s.trunk)}\` moved while accept ran (now ${short(before)}, judged at ${short(s.trunkSha)}). Nothing landed.`,
			[catchUpHint(ctx, here, target, s.given === "confirmed")],
			{ data: s.data },
		);
	}
	// The last moment a signal (Ctrl-C, a cancelled call) can stop the landing whole: once the trunk moves, it finishes first.
	if (ctx.signal.aborted) {
		return fail(
			"accept",
			"interrupted",
			`Accept was interrupted before the trunk \`${clip(s.trunk)}\` moved. Nothing landed.`,
			[say`Run ${ref("accept", s.again)} again when you are ready.`],
			{ data: s.data },
		);
	}
	// Every blob the landing writes, read from the object store and hashed, before anything moves: bytes rewritten
	// there since the gate ran (a loose object, a pack, an alternate store) never reach a checkout or the trunk.
	const bytes = await landingBlobs(here.root, s.trunkSha, s.head, ctx.env);
	if (!bytes.ok) return storeRefusal(ctx, here, target, main.path, bytes.problem, s.data, { dryRun: false, confirmed: s.given === "confirmed" });
	// What the landing writes, read before the journal that keeps its new folders for a later accept (see undoKilledLanding).
	const written = s.checkout ? await writtenPaths(s.checkout.path, s.trunkSha, s.head) : null;
	const journal: Journal = {
		version: 1,
		state: "landing",
		branch: target.branch,
		id: target.id,
		path: target.path,
		trunk: s.trunk,
		sha: s.head,
		previous_trunk_sha: s.trunkSha,
		proof_line: s.proof.line,
		proof: s.proof,
		checkout: s.checkout?.path ?? null,
		consent: s.given ?? "asked",
		done: [],
		destroyed: [],
		...(written ? { landing_new_folders: written.newFolders } : {}),
		time: new Date().toISOString(),
	};
	const denied = await journalWrite(() => writeJournal(here.commonDir, journal));
	if (denied) return fail("accept", denied.error, denied.message, denied.hints, { data: s.data });
	let problem: string | null;
	let killed = false;
	// Where an undo of a failed landing puts the files it takes away (named in the refusal).
	const keeper = new Keeper(here.commonDir);
	if (s.checkout) {
		// The landing's git is recorded as soon as it starts: a later accept judges by it whether the index lock it left is stale.
		let recording: Promise<unknown> = Promise.resolve();
		const failed = await fastForwardCheckout(s.checkout.path, s.trunkSha, s.head, ctx.env, written, keeper, (pid) => {
			const started = processStart(pid);
			if (started) recording = writeJournal(here.commonDir, { ...journal, landing_git: { pid, started } }).catch(() => undefined);
		});
		await recording;
		problem = failed?.problem ?? null;
		killed = failed?.killed ?? false;
	} else {
		// The trunk ref itself, never a ref it was made to point to since it was checked; hooks off.
		const swapped = await pinnedGit(["update-ref", "--no-deref", "-m", "discern accept", ref_, s.head, s.trunkSha], here.root);
		problem = swapped.exitCode === 0 ? null : firstLine(swapped.stderr) || `git update-ref exited ${swapped.exitCode}`;
	}
	const after = await commitOf(here.root, ref_);
	if (after !== s.head) {
		await removeJournal(here.commonDir, target.branch).catch(() => undefined);
		const where = s.checkout ? ` through the checkout at ${quoteName(s.checkout.path)}` : "";
		const why = problem ? `: ${clip(problem)}` : "";
		if (after !== s.trunkSha) {
			return fail(
				"accept",
				"trunk_moved",
				`The trunk \`${clip(s.trunk)}\` moved while accept ran (now ${short(after)}, judged at ${short(s.trunkSha)}). Nothing landed${why ? ` (git${why})` : ""}.${keeper.note() ? ` ${keeper.note()}` : ""}`,
				[catchUpHint(ctx, here, target, s.given === "confirmed")],
				{ data: s.data },
			);
		}
		const lockish = !killed && problem !== null && /\.lock\b|unable to create|cannot lock/i.test(problem);
		const stray = s.checkout ? await pinnedGit(["diff-index", "--cached", "--quiet", s.trunkSha, "--"], s.checkout.path) : null;
		const strayNote = stray && stray.exitCode !== 0 ? ` The index of that checkout no longer matches the trunk: check it with \`git status\` there.` : "";
		const left = keeper.note() ? `${strayNote} ${keeper.note()}` : strayNote;
		return fail(
			"accept",
			killed ? "interrupted" : lockish ? "locked" : "dirty_worktree",
			`The trunk \`${clip(s.trunk)}\` could not be moved${where}${why}. It is still at ${short(s.trunkSha)}: nothing landed.${left}`,
			[
				killed
					? "git was stopped by a signal from outside discern; nothing is left to fix unless the message names something."
					: lockish
						? "If no git process is running, remove the stale `.lock` file git names."
						: "Fix what git names in that checkout.",
				say`Then run ${ref("accept", s.again)} again.`,
			],
			{ data: s.data },
		);
	}
	const landed: Journal = { ...journal, state: "landed", done: s.checkout ? ["landed", "checkout_moved"] : ["landed"] };
	await writeJournal(here.commonDir, landed).catch(() => undefined);
	// The store could change between the check and git's read of it: the files git wrote are read back too.
	// Not as landed: the cleanup stops there, and the worktree (which holds the proven files) stays.
	const unlike = s.checkout ? await writtenFilesProblem(s.checkout.path, bytes.files) : null;
	return finish(ctx, here, main.path, landed, false, false, unlike ? [unlike] : []);
}

/** The object store does not hold what the proven commit names: nothing lands (or, in a dry run, would). */
export function storeRefusal(
	ctx: VerbContext,
	here: RepositoryLocation,
	target: Target,
	mainPath: string,
	problem: string,
	data: AcceptData,
	{ dryRun, confirmed }: { dryRun: boolean; confirmed: boolean },
): AcceptResult {
	const { say } = ctx;
	return fail(
		"accept",
		"gate_failed",
		`${dryRun ? "Accept would refuse" : "Nothing landed"}: ${clip(problem, 1000)}. A checkout git writes from these objects would hold other files than were proven.${dryRun ? " Nothing changed." : ""}`,
		[
			`Run \`git fsck\` in the main checkout (${quoteName(mainPath)}): it names the object files that do not hash to their ids. Something rewrote them after the gate ran (an agent's job, a disk): find out what, and restore them (from a clone or a backup) before landing.`,
			say`Then run ${ref("accept", againArgs(ctx, here, target, confirmed))} again.`,
		],
		{ data },
	);
}
