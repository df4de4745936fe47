import { openProject } from "../../config/open-project.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { commitOf, provenAncestor } from "../../git/ancestry.ts";
import { commitsBetween } from "../../git/commit-log.ts";
import { gitWithHooks, HOOKS } from "../../git/hooked.ts";
import { mergeWrites } from "../../git/merge-writes.ts";
import { nulSeparated } from "../../git/nul-list.ts";
import { filesHiddenFromStatus, type RepositoryLocation, readWorkingState } from "../../git/repository.ts";
import { git } from "../../git/run.ts";
import { type MergeStart, missingFolders, undoMerge } from "../../git/undo-merge.ts";
import { executePlan, failureSentence } from "../../jobs/execute.ts";
import type { GatePlan } from "../../jobs/plan.ts";
import { writeDenied } from "../../platform/write-denied.ts";
import { Keeper } from "../../state/kept.ts";
import { clip } from "../../text/clip.ts";
import { firstLine } from "../../text/first-line.ts";
import { plural } from "../../text/plural.ts";
import { pathArgument, shellCommand } from "../../text/shell-quote.ts";
import { quoteName } from "../../text/terminal.ts";
import { candidateNamed } from "../../trunk/candidates.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { checkoutCommandEnv, EnvFileRefused } from "../../worktree/env.ts";
import { readTask } from "../../worktree/task.ts";
import { untrackedInTheWay } from "../../worktree/untracked-in-the-way.ts";
import type { UpdateData, UpdateInput, UpdateResult } from "./schema.ts";

const CAP = 50;

function names(paths: readonly string[], limit = 10): string {
	return `${paths.slice(0, limit).map(quoteName).join(", ")}${paths.length > limit ? ` and ${paths.length - limit} more` : ""}`;
}

/**
 * Bring the trunk (or `from`) into this worktree's branch with a merge —
 * a fast-forward or a merge commit, never a rebase, so that no commit the
 * agent made changes identity. A conflict is aborted at once: the branch
 * is left exactly as it was. Then the project's `setup.ensure` commands.
 */
export async function update(ctx: VerbContext, input: UpdateInput): Promise<UpdateResult> {
	const { say } = ctx;
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("update", opened.refusal);
	const { repository, config } = opened;
	const { root } = repository;
	if (repository.location !== "worktree") {
		return fail("update", "not_in_worktree", "update merges the trunk into a worktree's branch; this is the main checkout.", [
			say`Run it inside a worktree (${ref("status")} lists where you are), or merge here with git yourself.`,
		]);
	}
	const [working, hidden] = await Promise.all([readWorkingState(root), filesHiddenFromStatus(root)]);
	if (!working)
		return fail("update", "dirty_worktree", "git could not report the working tree, so it cannot be trusted as clean.", [
			"Run `git status` and repair the repository.",
		]);
	if (!working.head) return fail("update", "dirty_worktree", "Nothing is committed on this branch yet.", ["Commit the work first."]);
	if (!working.branch)
		return fail("update", "detached_head", `HEAD is detached at ${working.head.slice(0, 7)}: only a branch can take a merge.`, [
			"Switch to the worktree's branch (`git switch NAME`), then update again.",
		]);
	const tracked = working.changes.filter((change) => change.kind !== "untracked").map((change) => change.path);
	if (tracked.length > 0) {
		return fail("update", "dirty_worktree", `Uncommitted changes to tracked files: ${names(tracked)}. A merge needs a committed tree.`, [
			say`Commit the changes, then run ${ref("update")}.`,
		]);
	}
	if (hidden === null || hidden.length > 0) {
		return fail("update", "dirty_worktree", "git is told to ignore changes to some tracked files, so the tree cannot be vouched for as committed.", [
			"Undo it with `git update-index --no-assume-unchanged FILE` / `--no-skip-worktree FILE`, then update again.",
		]);
	}
	const head = working.head;
	const branch = working.branch;
	// A merge commits on this branch. On the trunk, or a branch anything names as the trunk, that commit would land without consent.
	const { trunk, candidates } = await resolveTrunk(root, config.repository.trunk, ctx.env.DISCERN_TRUNK, { location: repository });
	const named = candidateNamed(await candidates(), branch);
	if (named) {
		const which =
			named.branch === trunk.name
				? `This worktree is on the trunk \`${clip(branch)}\``
				: `This worktree's branch \`${clip(branch)}\` is named as the trunk by ${named.namedBy.join(", ")} (discern's trunk is \`${clip(trunk.name ?? "?")}\`)`;
		return fail(
			"update",
			"awaiting_consent",
			`${which}: a merge commits on it, and a commit on the trunk lands without the owner's consent. Nothing changed.`,
			[
				say`Work on a task's own branch: ${ref("start", { title: "TITLE" })}; or settle which branch is the trunk (DISCERN_TRUNK, [repository].trunk on the trunk).`,
			],
		);
	}

	let fromName: string;
	let fromSha: string | null;
	let trunkName: string | null = null;
	if (input.from !== undefined) {
		fromName = input.from;
		// A name starting with `-` would read as an option; --end-of-options keeps every other name a revision.
		fromSha = input.from === "" || input.from.startsWith("-") ? null : await commitOf(root, input.from);
		if (!fromSha)
			return fail("update", "unknown_target", `\`${clip(input.from)}\` names no commit here.`, [
				say`Name a branch or commit, or run ${ref("update")} to merge the trunk.`,
			]);
	} else {
		if (!trunk.name || !trunk.exists)
			return fail("update", "no_trunk", "There is no trunk branch to merge.", ["Create the trunk branch, or set [repository].trunk in discern.toml."]);
		trunkName = trunk.name;
		fromName = trunk.name;
		fromSha = await commitOf(root, `refs/heads/${trunk.name}`);
		if (!fromSha) return fail("update", "no_trunk", `The trunk \`${clip(trunk.name)}\` has no commit.`, ["Commit on the trunk first."]);
	}

	const task = await readTask(repository.gitDir);
	// A trunk rewritten under the task (force-pushed, reset): merging it would weave the old history back in.
	if (input.from === undefined && task && task.from === trunkName && (await provenAncestor(root, task.base, fromSha)) === false) {
		return fail(
			"update",
			"conflict",
			`The trunk \`${clip(fromName)}\` was rewritten: the commit this task started from (${task.base.slice(0, 7)}) is no longer on it, so a merge would bring the replaced history back into \`${clip(branch)}\`. Nothing changed.`,
			[
				"Ask the owner what happened to the trunk; then carry this branch's own commits onto the new trunk by hand (`git cherry-pick`), or merge it with `git merge` if the old history belongs in it.",
			],
		);
	}

	const [logged, theirs, ours, contained, fastForward] = await Promise.all([
		commitsBetween(root, head, fromSha),
		git(["diff", "--name-only", "-z", "--no-renames", `${head}...${fromSha}`, "--"], root),
		git(["diff", "--name-only", "-z", "--no-renames", `${fromSha}...${head}`, "--"], root),
		provenAncestor(root, fromSha, head),
		provenAncestor(root, head, fromSha),
	]);
	const commits = logged ?? [];
	const files = theirs.exitCode === 0 ? nulSeparated(theirs.stdout) : [];
	const mine = new Set(ours.exitCode === 0 ? nulSeparated(ours.stdout) : []);
	const overlap = files.filter((path) => mine.has(path));
	const data: UpdateData = {
		from: fromName,
		from_sha: fromSha,
		previous_head: head,
		head,
		merged: false,
		fast_forward: false,
		commits: commits.slice(0, CAP),
		commits_total: commits.length,
		files: files.slice(0, CAP),
		files_total: files.length,
		overlap: overlap.slice(0, CAP),
		conflicts: [],
		ensure_ran: 0,
	};
	if (contained === true)
		return ok(
			"update",
			`\`${clip(branch)}\` already contains \`${clip(fromName)}\`; nothing to merge.`,
			data,
			input.dry_run ? { dry_run: true, plan: [] } : {},
		);
	// Every path the merge writes, told before it runs: git overwrites an ignored file there without a word (and,
	// where the merge conflicts, `merge --abort` then deletes what it wrote), so refuse while nothing has changed.
	// Refusing, not saving and restoring: a copy discern made would be one more place a person's .env could be
	// left behind by an interrupted run, while a refusal loses nothing, whenever the process stops. A dry run
	// refuses alike, so that what it says would happen is what happens.
	const writes = await mergeWrites(root, fromSha);
	if (writes.kind === "refused")
		return fail("update", "conflict", `git refused the merge: ${clip(writes.reason)}. Nothing changed.`, ["Merge by hand with git, or ask the owner."], {
			data,
		});
	const inTheWay = await untrackedInTheWay(root, writes.paths);
	if (inTheWay === null)
		return fail(
			"update",
			"dirty_worktree",
			"git could not list the files the worktree holds beside the tracked ones, so discern cannot tell whether the merge would overwrite untracked or ignored files. Nothing changed.",
			["Run `git status` and repair the repository, then update again."],
			{ data },
		);
	if (inTheWay.length > 0) return inTheWayRefusal(ctx, inTheWay, data);

	const ensure = ensurePlan(config);
	if (input.dry_run) {
		const plan: PlanItem[] = [
			{
				kind: "merge",
				label: fromName,
				disposition: "run",
				note: `${fastForward ? "fast-forward" : "merge commit"}: ${plural(commits.length, "commit")}, ${plural(files.length, "file")}`,
			},
			...ensure.phases.flat().map((job): PlanItem => ({ kind: "ensure", label: job.label, disposition: "run", note: job.commands.join(" && ") })),
		];
		return ok("update", `Would merge ${plural(commits.length, "commit")} from \`${clip(fromName)}\`; nothing changed.`, data, { dry_run: true, plan });
	}

	// What the merge writes, kept to put the worktree back whole should it be interrupted (git/undo-merge.ts).
	const start: MergeStart = { head, paths: writes.paths, newFolders: await missingFolders(root, writes.paths), started: Date.now() };
	// --no-overwrite-ignore: should a file appear after the check, a fast-forward refuses rather than writes over it.
	// The merge runs the repository's merge hooks: like a job, bounded by [gate].timeout, nothing they start left running.
	const merged = await gitWithHooks(
		[
			...writes.mergeArgs,
			"merge",
			"--no-edit",
			"--ff",
			"--no-squash",
			"--commit",
			"--no-autostash",
			"--no-overwrite-ignore",
			"-m",
			`Merge ${fromName} into ${branch}`,
			fromSha,
		],
		root,
		// A signal lets git finish (bounded): a merge stopped halfway leaves the worktree half written, a finished one is undone whole.
		{ timeoutS: config.gate.timeout, hooks: HOOKS.merge, signal: ctx.signal, finishOnSignalMs: FINISH_ON_SIGNAL_MS },
	);
	// A git killed from outside (no signal of ours) stopped as abruptly: its half-written checkout is undone alike.
	const killed = merged.killedBy && !merged.stalled && !merged.interrupted ? `git merge was killed (${merged.killedBy})` : undefined;
	if (merged.stalled || merged.interrupted || killed)
		return stoppedMerge(ctx, root, repository.commonDir, start, data, merged.stalled, ensure.phases.length > 0, killed);
	if (merged.exitCode !== 0) return refusedMerge(ctx, repository, head, data, merged.stdout + merged.stderr);
	const after = await commitOf(root, "HEAD");
	const result: UpdateData = { ...data, head: after, merged: after !== head, fast_forward: after === fromSha };
	const overlapHint = overlap.length > 0 ? [`This branch changed ${plural(overlap.length, "file")} that came in too: re-read ${names(overlap)}.`] : [];
	const message = `Merged ${plural(commits.length, "commit")} from \`${clip(fromName)}\` into \`${clip(branch)}\`${result.fast_forward ? " (fast-forward)" : ""}.`;
	if (ensure.phases.length === 0) return ok("update", message, result, { hints: [say`Run ${ref("done")} on the merged result.`, ...overlapHint] });

	let execution: Awaited<ReturnType<typeof executePlan>>;
	try {
		// The worktree's one command environment (worktree/env.ts), as `start` gave its ensure steps.
		execution = await executePlan({ ...ctx, env: await ensureEnv(ctx, repository, config, task?.id ?? null) }, repository, trunkName, ensure);
	} catch (error) {
		if (error instanceof EnvFileRefused)
			return fail(
				"update",
				"invalid_config",
				`${message} But setup.ensure did not run: ${error.message}.`,
				["Fix [worktree].env_files in discern.toml, then run the ensure command yourself."],
				{ data: result },
			);
		const refusal = writeDenied(error, "the run's logs");
		if (refusal) return asVerb("update", refusal);
		throw error;
	}
	const ran = execution.report.runs.length;
	if (execution.report.failed || execution.report.interrupted) {
		return fail(
			"update",
			execution.report.interrupted ? "interrupted" : "gate_failed",
			`${message} But [worktree].setup.ensure failed: ${failureSentence(execution.report)}.`,
			["Read the diagnostics, fix the environment, and run the ensure command again yourself.", ...overlapHint],
			{ data: { ...result, ensure_ran: ran }, diagnostics: execution.diagnostics },
		);
	}
	return ok("update", message, { ...result, ensure_ran: ran }, { hints: [say`Run ${ref("done")} on the merged result.`, ...overlapHint] });
}

/** `[worktree].setup.ensure`, one command after another, as gate jobs (own process group, timeout, logs). */
function ensurePlan(config: DiscernConfig): GatePlan {
	const commands = config.worktree.setup.ensure.filter((command) => command.trim() !== "" && command.trim() !== ":");
	return {
		verb: "prepare",
		phases: commands.map((command, index) => [
			{
				label: `ensure${commands.length > 1 ? `-${index + 1}` : ""}`,
				stage: "fix" as const,
				kind: "job" as const,
				exitDecides: true,
				commands: [command],
				timeout: config.gate.timeout,
			},
		]),
		skipped: [],
		failFast: true,
	};
}

/** How long an interrupted merge gets to finish before it is stopped (and undone whatever point it reached). */
const FINISH_ON_SIGNAL_MS = 30_000;

/**
 * A merge that did not run its course. Interrupted (Ctrl-C, a cancelled
 * call): git was let finish, and the merge is undone whole, whatever point
 * it reached (git/undo-merge.ts): the branch is as it was. A hook ran past
 * the time limit and git was stopped with everything it started: stopped
 * before the merge commit (pre-merge-commit, commit-msg), the merge is
 * undone alike; stopped after (post-merge), the merge stands but
 * setup.ensure does not run.
 */
async function stoppedMerge(
	ctx: VerbContext,
	root: string,
	commonDir: string,
	start: MergeStart,
	data: UpdateData,
	stalled: string | undefined,
	ensures: boolean,
	killed?: string,
): Promise<UpdateResult> {
	const { say } = ctx;
	const code = stalled ? "gate_failed" : "interrupted";
	const why = stalled ?? killed ?? "the run was interrupted";
	const hint = stalled ? "Make the hook finish in time (or raise [gate].timeout, which bounds it). " : "";
	const after = await commitOf(root, "HEAD");
	if (stalled && after !== null && after !== start.head) {
		return fail(
			"update",
			code,
			`Merged \`${clip(data.from)}\`, but ${why}${ensures ? "; setup.ensure did not run" : ""}.`,
			[say`${hint}${ensures ? "Run the ensure commands yourself, then run" : "Run"} ${ref("done")} on the merged result.`],
			{ data: { ...data, head: after, merged: true, fast_forward: after === data.from_sha } },
		);
	}
	const keeper = new Keeper(commonDir);
	const left = await undoMerge(root, start, keeper);
	const kept = keeper.note();
	if (left === null)
		return fail(
			"update",
			code,
			`Merging \`${clip(data.from)}\` stopped: ${why}. The merge was undone: the branch is as it was.${kept ? ` ${kept}` : ""}`,
			[say`${hint}Run ${ref("update")} again${stalled ? "" : " when you are ready"}.`, ...(kept ? [kept] : [])],
			{ data },
		);
	return fail(
		"update",
		code,
		`Merging \`${clip(data.from)}\` stopped: ${why}. The merge could not be undone whole: ${left}.${kept ? ` ${kept}` : ""}`,
		[
			`\`git status\` in the worktree shows what the merge left; the branch was at ${start.head.slice(0, 7)} before it (\`${shellCommand("git", "reset", "--keep", start.head)}\` moves it back, keeping local changes; \`${shellCommand("git", "checkout", start.head, "--", ".")}\` then puts back its tracked files).`,
			say`Then run ${ref("update")} again.`,
			...(kept ? [kept] : []),
		],
		{ data },
	);
}

/** A merge git refused or stopped: abort what it began, and say why in its own words. */
async function refusedMerge(ctx: VerbContext, repository: RepositoryLocation, head: string, data: UpdateData, output: string): Promise<UpdateResult> {
	const { say } = ctx;
	const { root } = repository;
	const pending = await git(["rev-parse", "-q", "--verify", "MERGE_HEAD"], root);
	if (pending.exitCode === 0) {
		const unmerged = await git(["diff", "--name-only", "-z", "--diff-filter=U"], root);
		const conflicts = unmerged.exitCode === 0 ? nulSeparated(unmerged.stdout) : [];
		const aborted = await git(["merge", "--abort"], root);
		const back = (await commitOf(root, "HEAD")) === head && aborted.exitCode === 0;
		return fail(
			"update",
			"conflict",
			`Merging \`${clip(data.from)}\` conflicts in ${conflicts.length > 0 ? names(conflicts) : "files git did not list"}. ${back ? "The merge was aborted: the branch is as it was." : "The merge could not be aborted: run `git merge --abort`."}`,
			[
				`Merge by hand (\`${shellCommand("git", "merge", data.from_sha ?? data.from)}\`), resolve ${conflicts.length > 0 ? names(conflicts, 3) : "the conflicts"}, commit, then continue; or ask the owner.`,
				say`Then run ${ref("done")}.`,
			],
			{ data: { ...data, conflicts: conflicts.slice(0, CAP) } },
		);
	}
	const line = clip(firstLine(output.split("\n").find((text) => /error|fatal|overwritten/i.test(text)) ?? output) || "git merge failed");
	if (/would be overwritten/i.test(output)) {
		const listed = overwrittenFiles(output);
		return fail(
			"update",
			"dirty_worktree",
			`The merge would overwrite ${listed.length > 0 ? `${plural(listed.length, "file")} in the worktree: ${names(listed)}` : `files in the worktree: ${line}`}. Nothing changed.`,
			["Move or commit the files named, then update again."],
			{ data },
		);
	}
	return fail("update", "conflict", `git refused the merge: ${line} Nothing changed.`, ["Merge by hand with git, or ask the owner."], { data });
}

/** The files git lists under "…would be overwritten by merge:" (one per line, tab-indented). */
export function overwrittenFiles(output: string): string[] {
	const files: string[] = [];
	let inList = false;
	for (const line of output.split("\n")) {
		if (/would be overwritten by merge:\s*$/.test(line)) {
			inList = true;
			continue;
		}
		if (inList && /^\t/.test(line)) files.push(line.trim());
		else inList = false;
	}
	return [...new Set(files)];
}

/** The files the merge would write over, named, and how to keep them. */
function inTheWayRefusal(ctx: VerbContext, inTheWay: readonly string[], data: UpdateData): UpdateResult {
	const { say } = ctx;
	const first = (inTheWay[0] ?? "").replace(/\/$/, "");
	const one = inTheWay.length === 1;
	return fail(
		"update",
		"dirty_worktree",
		`The merge would write over ${plural(inTheWay.length, "file")} git does not track here (untracked or ignored, e.g. a copied .env): ${names(inTheWay)}. Nothing changed.`,
		[
			say`Move ${one ? "it" : "them"} out of the way and keep ${one ? "it" : "them"} (ignored files often hold local settings or secrets): from the worktree's root, e.g. \`${shellCommand("mv", pathArgument(first), pathArgument(`${first}.kept`))}\`${one ? "" : " for each"}; run ${ref("update")} again, then bring back what you still need.`,
		],
		{ data },
	);
}

/** The env of `setup.ensure` after a merge: the worktree's command env (see worktree/env.ts). */
async function ensureEnv(ctx: VerbContext, repository: RepositoryLocation, config: DiscernConfig, id: string | null): Promise<VerbContext["env"]> {
	return checkoutCommandEnv(ctx.env, repository, config.worktree, id);
}
