import { randomUUID } from "node:crypto";
import { lstat, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { fail, ok } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { commitOf, provenAncestor } from "../../git/ancestry.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { git } from "../../git/run.ts";
import { realPathOf } from "../../platform/files.ts";
import { processAlive } from "../../platform/lock.ts";
import { groupAlive } from "../../platform/process-scan.ts";
import { processStart } from "../../platform/process-start.ts";
import { ProofRecord } from "../../proof/record.ts";
import { clip } from "../../text/clip.ts";
import { firstLine } from "../../text/first-line.ts";
import { plural } from "../../text/plural.ts";
import { shellCommand } from "../../text/shell-quote.ts";
import { quoteName } from "../../text/terminal.ts";
import { listWorktrees } from "../../worktree/git-worktrees.ts";
import { keptFor, type LeftFiles, leftFiles, noLeftFiles } from "../../worktree/left-files.ts";
import { keptReasons } from "../../worktree/person-files.ts";
import { destroyResources } from "../../worktree/resources.ts";
import { readTask } from "../../worktree/task.ts";
import { gateChangeSentence } from "./consent.ts";
import { type AcceptStep, type Journal, removeJournal, writeJournal } from "./journal.ts";
import { moveCheckout, NOTE_REF, pinnedGit, proofNote, writeNote } from "./land.ts";
import { landingBlobs, writtenFilesProblem } from "./landing-bytes.ts";
import { type AcceptResult, landedData } from "./schema.ts";
import { opensAsListed } from "./target.ts";

const WHAT: Record<AcceptStep, string> = {
	landed: "land the trunk",
	checkout_moved: "move the files of the checkout on the trunk",
	noted: "write the Proof note",
	resources_destroyed: "destroy the worktree's resources",
	worktree_removed: "remove the worktree",
	branch_deleted: "delete the branch",
};

/**
 * Everything after the trunk moved, each step recorded in the journal as
 * it completes; the first failure stops the rest (a resource left standing
 * may still need its worktree) and says what running accept again finishes.
 */
export async function finish(
	ctx: VerbContext,
	here: RepositoryLocation,
	mainPath: string,
	start: Journal,
	resumed: boolean,
	keepWorktree = false,
	/** What the landing itself left wrong (files not as landed): the cleanup stops before it starts. */
	landingProblems: readonly string[] = [],
): Promise<AcceptResult> {
	const { say } = ctx;
	let journal = start;
	const failed: string[] = [...landingProblems];
	let resourcesFailed: string[] = [];
	let branchKept: string | null = null;
	let branchSymbolic: string | null = null;
	const mark = async (step: AcceptStep) => {
		journal = { ...journal, done: [...journal.done, step] };
		await writeJournal(here.commonDir, journal).catch(() => undefined);
	};
	const pending = (step: AcceptStep) => !journal.done.includes(step) && failed.length === 0;

	// The trunk must still hold what landed: a journal is never a reason to move it again.
	// Every git call runs in the main checkout: the worktree (where accept may have started) goes away.
	const root = mainPath;
	const trunkNow = await commitOf(root, `refs/heads/${journal.trunk}`);
	if (!trunkNow || (trunkNow !== journal.sha && (await provenAncestor(root, journal.sha, trunkNow)) !== true)) {
		failed.push(`the trunk \`${clip(journal.trunk)}\` no longer contains ${journal.sha.slice(0, 7)}, which accept recorded as landed`);
	}
	if (pending("checkout_moved")) {
		const problem = journal.checkout ? await moveCheckout(journal.checkout, journal.previous_trunk_sha, journal.sha) : null;
		// Files written from the store again: read back against what landed, as a first landing's are.
		const unlike = journal.checkout && !problem ? await resumedFilesProblem(ctx, root, journal, journal.checkout) : null;
		if (problem) failed.push(problem);
		else {
			await mark("checkout_moved");
			if (unlike) failed.push(unlike);
		}
	}
	if (pending("noted")) {
		const proof = v.safeParse(ProofRecord, journal.proof);
		const problem = proof.success ? await writeNote(root, journal.sha, proofNote(proof.output, journal.branch)) : "the journal's Proof record does not parse";
		if (problem) failed.push(problem);
		else await mark("noted");
	}
	if (keepWorktree) return keptResult(ctx, here, mainPath, journal, failed);
	// A signal (Ctrl-C) that came while the trunk moved is acted on once it has: the landing stays, the cleanup waits for the next accept.
	if (ctx.signal.aborted && failed.length === 0) failed.push("accept was interrupted (by a signal) once the trunk had moved, so the cleanup did not start");
	// The journal's path is checked again against git's list: a folder swapped (for a symlink into another worktree, say)
	// since the landing is never read, run in or removed as this worktree.
	const place = pending("worktree_removed") ? await journalWorktree(ctx, here, mainPath, journal) : ({ state: "gone" } as const);
	if (place.state === "unsure") failed.push(place.why);
	const wtPath = place.state === "here" ? place.path : null;
	// The worktree went on past what landed (a commit after the Proof): it is kept with its resources and branch.
	const wtHead = wtPath ? await commitOf(wtPath, "HEAD") : null;
	const wentOn = wtHead !== null && wtHead !== journal.sha && (await provenAncestor(root, wtHead, `refs/heads/${journal.trunk}`)) !== true ? wtHead : null;
	// What the folder holds beyond its commits, looked at before anything of it is destroyed: an env file edited there
	// since start copied it (and copied nowhere else), or a repository inside it holding commits or changes only it has,
	// keeps the worktree whole, with its resources and branch (person-files.ts: drop and prune judge it the same way).
	const task = place.state === "here" && place.gitDir ? await readTask(place.gitDir) : null;
	const look = async () => (wtPath ? await leftFiles(wtPath, place.state === "here" ? place.gitDir : null, mainPath, task) : noLeftFiles());
	let files: LeftFiles | null = wtPath && pending("worktree_removed") && !wentOn ? await look() : noLeftFiles();
	if (files === null) failed.push("git could not list the untracked and ignored files of the worktree, so it was not removed");
	let kept = keptFor(files);
	if (pending("resources_destroyed") && !wentOn && !kept) {
		// A destroy an earlier accept started (and was killed during) may still run: never start a second one beside it.
		// A destroy runs as long as its process group does: its leader may be a zombie (an init that never reaps) or gone while
		// what it started still runs. A PID that now names another process is not the leader's.
		const running: NonNullable<Journal["destroying"]> = [];
		for (const leader of journal.destroying ?? []) {
			const now = processStart(leader.pid);
			if ((now === null || now === leader.started) && (processAlive(leader.pid) || (await groupAlive(leader.pid)))) running.push(leader);
		}
		if (running.length > 0) {
			return fail(
				"accept",
				"locked",
				`The destroy commands of an earlier accept of \`${clip(journal.branch)}\` still run (pid ${running.map((leader) => leader.pid).join(", ")}): a second destroy is not started beside them. The trunk already holds ${journal.sha.slice(0, 7)}; nothing else changed.`,
				[say`Wait for them to finish (or stop them), then run ${ref("accept", { target: journal.branch })} from the main checkout again.`],
				{ data: resumedData(mainPath, journal) },
			);
		}
		if (journal.id) {
			const env = Object.fromEntries(Object.entries(ctx.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
			const cwd = wtPath ?? mainPath;
			let writing: Promise<unknown> = Promise.resolve();
			const ledger = {
				tokenPrefix: randomUUID(),
				jobStarted: (pid: number) => {
					const started = processStart(pid);
					if (!started) return;
					journal = { ...journal, destroying: [...(journal.destroying ?? []), { pid, started }] };
					const snapshot = journal;
					writing = writing.then(() => writeJournal(here.commonDir, snapshot)).catch(() => undefined);
				},
			};
			const outcome = await destroyResources(here.commonDir, journal.id, { cwd, env, signal: ctx.signal, ledger, worktree: journal.path });
			await writing;
			journal = { ...journal, destroyed: [...journal.destroyed, ...outcome.destroyed], destroying: [] };
			resourcesFailed = outcome.failed.map((entry) => entry.name);
			if (!outcome.ok) {
				failed.push(`resources could not be destroyed: ${outcome.failed.map((entry) => `${entry.name} (${clip(entry.message, 200)})`).join(", ")}`);
				await writeJournal(here.commonDir, journal).catch(() => undefined);
			} else await mark("resources_destroyed");
		} else await mark("resources_destroyed");
	}
	if (pending("worktree_removed") && !wentOn && !kept) {
		// The destroy commands ran for up to minutes: what the folder holds is read again right before it goes.
		if (wtPath && journal.done.includes("resources_destroyed")) {
			files = await look();
			if (files === null) failed.push("git could not list the untracked and ignored files of the worktree, so it was not removed");
			kept = keptFor(files);
		}
		if (failed.length > 0 || kept) {
			// Kept: reported below.
		} else if (wtPath) {
			// Never --force: a worktree holding anything git would lose stays, and the step is reported.
			// In a process group of its own: a Ctrl-C never leaves half a folder (which git then refuses to remove as modified).
			const removed = await pinnedGit(["worktree", "remove", wtPath], mainPath, { ownGroup: true });
			if (removed.exitCode !== 0) {
				const untracked = files && files.untracked_count > 0 ? ` (untracked: ${listed(files.untracked, files.untracked_count)})` : "";
				failed.push(`the worktree could not be removed: ${clip(firstLine(removed.stderr) || `exit ${removed.exitCode}`)}${untracked}`);
			} else await mark("worktree_removed");
		} else await mark("worktree_removed");
	}
	// A kept worktree keeps its branch checked out: deleting the branch would leave it on none.
	if (pending("branch_deleted") && !kept) {
		// A branch made a symbolic ref (to the trunk, say) is never deleted: git would delete what it points to.
		const symbolic = await git(["symbolic-ref", "-q", `refs/heads/${journal.branch}`], root);
		const tip = symbolic.exitCode === 0 ? null : symbolic.exitCode === 1 ? await branchTip(root, journal.branch) : undefined;
		if (symbolic.exitCode === 0) branchSymbolic = symbolic.stdout.trim();
		else if (tip === undefined) failed.push("git could not read the branch");
		else if (tip === null) await mark("branch_deleted");
		else if ((await provenAncestor(root, tip, `refs/heads/${journal.trunk}`)) === true) {
			// Compare-and-swap again: deleted only while it still points at a commit the trunk holds; the ref itself, never what it points to.
			const deleted = await pinnedGit(["update-ref", "--no-deref", "-d", `refs/heads/${journal.branch}`, tip], root);
			if (deleted.exitCode !== 0) failed.push(`the branch could not be deleted: ${clip(firstLine(deleted.stderr) || `exit ${deleted.exitCode}`)}`);
			else await mark("branch_deleted");
		} else branchKept = tip;
	}

	const data = {
		...landedData(mainPath, journal),
		note_ref: journal.done.includes("noted") ? NOTE_REF : null,
		worktree_removed: journal.done.includes("worktree_removed"),
		branch_deleted: journal.done.includes("branch_deleted"),
		resources: { destroyed: journal.destroyed, failed: resourcesFailed },
		worktree_files: files ?? noLeftFiles(),
		consent: resumed ? ("resumed" as const) : journal.consent,
	};
	const removedWith =
		data.worktree_removed && files && files.ignored_count > 0
			? ` Deleted with the worktree: ${plural(files.ignored_count, "ignored file or folder", "ignored files or folders")} (${listed(files.ignored, files.ignored_count)}).`
			: "";
	const editedEnv = kept ? (files?.edited_env ?? []) : [];
	const repositories = kept ? (files?.nested_repositories ?? []) : [];
	const keptWhy = keptReasons({ edited_env: editedEnv, repositories });
	const keptSentence =
		keptWhy.length > 0
			? ` The worktree at ${quoteName(journal.path)} was kept, with its ${journal.done.includes("resources_destroyed") ? "branch (its resources were destroyed)" : "resources and branch"}: ${keptWhy.join("; ")}.`
			: "";
	const parsed = v.safeParse(ProofRecord, journal.proof);
	const gateSentence = parsed.success ? gateChangeSentence(parsed.output.judgement.gate_changes) : null;
	const landedSentence = `Landed \`${clip(journal.branch)}\` @ ${journal.sha.slice(0, 7)} on \`${clip(journal.trunk)}\` (was ${journal.previous_trunk_sha.slice(0, 7)}).${keptSentence}`;
	if (failed.length > 0) {
		const remaining = (Object.keys(WHAT) as AcceptStep[]).filter((step) => !journal.done.includes(step));
		return fail(
			"accept",
			"partial_acceptance",
			`${landedSentence} Not finished: ${failed.join("; ")}.`,
			[
				say`Fix what the message names, then run ${ref("accept", { target: journal.branch })} from the main checkout again: it finishes ${remaining.map((step) => WHAT[step]).join(", ")} and never lands twice.`,
				`The main checkout is at ${mainPath}.`,
				...(gateSentence ? [`Tell the owner plainly: ${gateSentence}`] : []),
			],
			{ data: { ...data, remaining } },
		);
	}
	await removeJournal(here.commonDir, journal.branch).catch(() => undefined);
	const hints = [
		`Relay the Proof line verbatim: ${journal.proof_line}`,
		...(data.worktree_removed ? [`The worktree is gone: work continues in the main checkout, ${mainPath}.`] : []),
		...(editedEnv.length > 0
			? [
					say`Save what you need from ${editedEnv.map((path) => quoteName(join(journal.path, path))).join(", ")} (into the main checkout's copy, say), then remove the worktree from the main checkout (${quoteName(mainPath)}) with ${ref("worktree drop", { id: journal.id ?? journal.path })}: its resources and branch go with it.`,
				]
			: []),
		...(repositories.length > 0
			? [
					say`Move ${repositories.length === 1 ? "the repository" : "the repositories"} out of the worktree (${repositories
						.slice(0, 3)
						.map((repository) => `\`${shellCommand("mv", "-n", "--", join(journal.path, repository.path), `${journal.path}-${basename(repository.path)}`)}\``)
						.join(
							"; ",
						)}${repositories.length > 3 ? "; …" : ""}), or push its commits and commit or discard its changes; then remove the worktree from the main checkout (${quoteName(mainPath)}) with ${ref("worktree drop", { id: journal.id ?? journal.path })}: its resources and branch go with it.`,
				]
			: []),
		...(gateSentence ? [`Tell the owner plainly: ${gateSentence}`] : []),
		...(wentOn
			? [
					`The worktree at ${quoteName(journal.path)} was kept with its resources and branch: its HEAD (${wentOn.slice(0, 7)}) went on past what landed. Prove and accept it again to land the rest.`,
				]
			: []),
		...(branchSymbolic
			? [
					`The branch \`${clip(journal.branch)}\` was not deleted: it is a symbolic ref to \`${clip(branchSymbolic)}\`, and deleting it would delete that. Remove it yourself if it is not wanted (\`${shellCommand("git", "symbolic-ref", "--delete", `refs/heads/${journal.branch}`)}\`).`,
				]
			: []),
		...(branchKept ? [`The branch \`${clip(journal.branch)}\` was kept: it holds commits beyond what landed (tip ${branchKept.slice(0, 7)}).`] : []),
	];
	return ok("accept", `${landedSentence} ${journal.proof_line}${gateSentence ? ` ${gateSentence}` : ""}${removedWith}`, data, { hints });
}

/**
 * After an earlier landing whose worktree went on: only what cannot lose
 * work (the checkout's files, the note) is finished; the worktree, its
 * resources and its branch stay, and the journal closes.
 */
async function keptResult(ctx: VerbContext, here: RepositoryLocation, mainPath: string, journal: Journal, failed: string[]): Promise<AcceptResult> {
	const { say } = ctx;
	const data = resumedData(mainPath, journal);
	if (failed.length > 0) {
		return fail(
			"accept",
			"partial_acceptance",
			`An earlier accept landed \`${clip(journal.branch)}\` @ ${journal.sha.slice(0, 7)} on \`${clip(journal.trunk)}\`; not finished: ${failed.join("; ")}. The worktree went on since and is kept; nothing new landed.`,
			[say`Fix what the message names, then run ${ref("accept", { target: journal.branch })} from the main checkout again.`],
			{ data: { ...data, remaining: ["checkout_moved", "noted"].filter((step) => !journal.done.includes(step as AcceptStep)) } },
		);
	}
	await removeJournal(here.commonDir, journal.branch).catch(() => undefined);
	return ok(
		"accept",
		`An earlier accept landed \`${clip(journal.branch)}\` @ ${journal.sha.slice(0, 7)} on \`${clip(journal.trunk)}\` (its Proof note is written); the worktree went on since, so it was kept.`,
		data,
	);
}

/** Why the files a resumed move wrote into `checkout` are not what landed (or its blobs do not hash to their ids), or null. */
async function resumedFilesProblem(ctx: VerbContext, root: string, journal: Journal, checkout: string): Promise<string | null> {
	const bytes = await landingBlobs(root, journal.previous_trunk_sha, journal.sha, ctx.env);
	if (!bytes.ok)
		return `the files of the checkout at ${quoteName(checkout)} may not be what landed: ${clip(bytes.problem, 1000)}; run \`git fsck\` there, and restore the files from the worktree, which was kept`;
	return writtenFilesProblem(checkout, bytes.files);
}

/** Finish an earlier landing whose worktree went on; the journal closes unless something failed. */
export async function settleEarlier(
	ctx: VerbContext,
	here: RepositoryLocation,
	mainPath: string,
	journal: Journal,
): Promise<{ ok: true; sentence: string } | { ok: false; result: AcceptResult }> {
	const result = await finish(ctx, here, mainPath, journal, true, true);
	return result.ok ? { ok: true, sentence: result.message } : { ok: false, result };
}

/**
 * Where the journal's worktree is now: `here` (its folder, checked to open
 * as the worktree git lists for the journal's branch: same real path, same
 * admin dir, on that branch), `gone` (git lists no worktree of that branch,
 * or its folder no longer exists: whatever is at the path now is not it,
 * and is left alone), or `unsure` (the folder opens as something else, or
 * git lists the branch's worktree elsewhere: nothing is removed).
 */
async function journalWorktree(
	ctx: VerbContext,
	here: RepositoryLocation,
	mainPath: string,
	journal: Journal,
): Promise<{ state: "here"; path: string; gitDir: string | null } | { state: "gone" } | { state: "unsure"; why: string }> {
	const entries = await listWorktrees(mainPath, here.commonDir);
	if (entries === null) return { state: "unsure", why: "git could not list the worktrees" };
	const mine = entries.filter((entry) => !entry.main && !entry.bare && entry.branch === journal.branch);
	if (mine.length === 0) return { state: "gone" };
	const wanted = await realPathOf(journal.path);
	for (const entry of mine) {
		if ((await realPathOf(entry.path)) !== wanted) continue;
		if (!(await isDirectory(entry.path)) && !(await lstat(journal.path).catch(() => null))) return { state: "gone" };
		const opened = (await lstat(journal.path).catch(() => null))?.isSymbolicLink() ? null : await opensAsListed(entry, journal.path, here.commonDir, ctx.env);
		if (opened) return { state: "here", path: journal.path, gitDir: entry.gitDir };
		return {
			state: "unsure",
			why: `the folder at ${quoteName(journal.path)} no longer opens as the worktree of \`${clip(journal.branch)}\` git lists there (it was moved, replaced or switched): it was not removed`,
		};
	}
	return {
		state: "unsure",
		why: `git lists the worktree of \`${clip(journal.branch)}\` at ${mine.map((entry) => quoteName(entry.path)).join(", ")}, not at ${quoteName(journal.path)} where it was landed from: nothing was removed`,
	};
}

async function isDirectory(path: string): Promise<boolean> {
	return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

/** A branch's commit; null when it does not exist, undefined when git could not say. */
async function branchTip(root: string, branch: string): Promise<string | null | undefined> {
	const result = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`], root);
	if (result.exitCode === 0) return result.stdout.trim();
	return result.exitCode === 1 ? null : undefined;
}

/** What a result says of a landing an earlier accept made (its journal): landed, where, with which Proof and note. */
function resumedData(mainPath: string, journal: Journal) {
	return { ...landedData(mainPath, journal), note_ref: journal.done.includes("noted") ? NOTE_REF : null, consent: "resumed" as const };
}

/** Names as a sentence lists them, quoted, with how many more there are. */
function listed(names: readonly string[], count: number): string {
	const shown = names.slice(0, 10).map(quoteName).join(", ");
	return count > 10 ? `${shown} and ${count - 10} more` : shown;
}
