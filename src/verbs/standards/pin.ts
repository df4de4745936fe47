import { CONFIG_FILE, parseConfig } from "../../config/load.ts";
import { openProject } from "../../config/open-project.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import { ref, type VerbRef } from "../../contract/refer.ts";
import { setKey } from "../../edit/toml.ts";
import { gitWithHooks, HOOKS } from "../../git/hooked.ts";
import { gitLine } from "../../git/run.ts";
import type { WorkingState } from "../../git/status.ts";
import { failureSentence } from "../../jobs/execute.ts";
import { planItems, planStandards } from "../../jobs/plan.ts";
import { writeFileAtomic } from "../../platform/files.ts";
import { writeDenied } from "../../platform/write-denied.ts";
import { configNotCommitted } from "../../proof/committed-config.ts";
import { measureStandards, tightenedLimit } from "../../standards/measure.ts";
import { failing } from "../../standards/verdict.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { endSentence } from "../../text/sentence.ts";
import { shellCommand } from "../../text/shell-quote.ts";
import { oneLine, quoteName } from "../../text/terminal.ts";
import { candidateNamed } from "../../trunk/candidates.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { everyChange, readTreeWork } from "../../worktree/tree-work.ts";
import { carryProof, proofBefore } from "./carry-proof.ts";
import type { StandardsData } from "./schema.ts";
import { selectStandards } from "./select.ts";
import { verifyPinCommit } from "./verify-commit.ts";

const BOM = "\uFEFF";

type PinVerb = "standards" | "standards pin";

interface PinInput {
	names?: string[] | undefined;
	dry_run?: boolean | undefined;
}

interface Change {
	name: string;
	before: number;
	after: number;
	value: number;
	margin: number;
}

/**
 * `standards pin [NAMES…]` (over MCP, `discern_standards` with `pin: true`):
 * on a clean, committed tree, measure the selected standards; refuse while
 * any of them fails (`gate_failed`: a pin records gains, never a failure);
 * set each improved limit to measured ∓ margin in discern.toml, touching
 * nothing but those numbers; commit that file alone with a message listing
 * old → new (`pin_failed` when the edit or the commit cannot be made, the
 * file restored); carry the previous commit's honored Proof to the new one.
 */
export async function pinStandards<const Verb extends PinVerb>(ctx: VerbContext, verb: Verb, input: PinInput): Promise<Result<Verb, StandardsData>> {
	const { say } = ctx;
	const again = ref("standards pin", input.names && input.names.length > 0 ? { names: input.names } : {});
	let empty: StandardsData = { standards: [], interrupted: false };
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb(verb, opened.refusal);
	const { repository, config, configBytes } = opened;
	const selected = selectStandards(verb, config, input.names, ctx.say);
	if (!selected.ok) return selected.result;
	const { names } = selected;

	// 1. A clean, committed tree on a branch: the pin's commit must hold discern.toml's change and nothing else.
	// Clean as done judges it (tree-work.ts): the Proof a pin carries over must be one done would honor on this tree.
	const working = await judgedTree(repository);
	if (!working)
		return fail(
			verb,
			"dirty_worktree",
			"git could not report the working tree, so it cannot be trusted as clean.",
			["Run `git status` and repair the repository."],
			{ data: empty },
		);
	if (working.head === null)
		return fail(
			verb,
			"dirty_worktree",
			"Nothing is committed on this branch yet: a pin commits on top of committed work.",
			[say`Commit the work, then run ${again}.`],
			{ data: empty },
		);
	if (working.branch === null)
		return fail(
			verb,
			"detached_head",
			`HEAD is detached at ${working.head.slice(0, 7)}: a pin commits on a branch.`,
			[say`Switch to a branch (\`git switch -c NAME\`), then run ${again}.`],
			{ data: empty },
		);
	// A pin commits. On the trunk that commit would land without the owner's consent: it belongs on a task's branch.
	// Not only the trunk every verb resolves: any branch anything names as the trunk (a decoy origin/HEAD must not make the real one fair game).
	const authority = resolveTrunk(repository.root, config.repository.trunk, ctx.env.DISCERN_TRUNK, { location: repository });
	const { trunk, candidates } = await authority;
	empty = { ...empty, trunk: trunk.name };
	const named = candidateNamed(await candidates(), working.branch);
	if (named) {
		const which =
			named.branch === trunk.name
				? `This is the trunk \`${clip(trunk.name)}\``
				: `This branch \`${clip(named.branch)}\` is named as the trunk by ${named.namedBy.join(", ")} (discern's trunk is \`${clip(trunk.name ?? "?")}\`)`;
		return fail(
			verb,
			"awaiting_consent",
			`${which}: a pin commits, and a commit on the trunk lands without the owner's consent.`,
			[
				say`Pin on a task's branch: ${ref("start", { title: "pin standards" })}, run ${again} there, then land it with ${ref("accept")} once the owner consents.`,
			],
			{ data: empty },
		);
	}
	if (working.changes.length > 0) {
		const listed = working.changes
			.slice(0, 10)
			.map((change) => quoteName(change.path))
			.join(", ");
		const more = working.changes.length > 10 ? ` and ${working.changes.length - 10} more` : "";
		return fail(
			verb,
			"dirty_worktree",
			`The tree has uncommitted changes: ${listed}${more}. A pin measures the committed tree and commits discern.toml alone.`,
			[say`Commit (or discard) the changes, then run ${again}.`, say`${ref("standards")} measures the tree as it is, without pinning.`],
			{ data: empty },
		);
	}
	const notCommitted = await configNotCommitted(repository.root, working.head, configBytes);
	if (notCommitted)
		return fail(
			verb,
			"dirty_worktree",
			`A pin edits the committed discern.toml, but ${notCommitted}.`,
			[say`Commit discern.toml as a regular file, then run ${again}.`],
			{ data: empty },
		);
	if (names.length === 0) {
		return ok(verb, "discern.toml declares no standard: nothing to pin.", empty, {
			hints: [say`Declare one under [standards.NAME]; see ${ref("docs", { target: "config" })}.`],
		});
	}
	if (input.dry_run) {
		const plan = [
			...planItems(planStandards(config, names)),
			{ kind: "edit", label: CONFIG_FILE, disposition: "run" as const, note: "set each improved limit to measured ∓ margin, every other byte kept" },
			{ kind: "commit", label: CONFIG_FILE, disposition: "run" as const, note: "commit discern.toml alone, listing old → new; an honored Proof carries over" },
		];
		return ok(verb, `Would measure ${plural(names.length, "standard")} and pin each improved one; nothing ran.`, empty, { dry_run: true, plan });
	}

	// 2. Measure (and learn, meanwhile, whether the commit's Proof is honored: it can only carry over if it is).
	const before = proofBefore(repository, config, working.head, working.branch, authority);
	let measured: Awaited<ReturnType<typeof measureStandards>>;
	try {
		measured = await measureStandards(ctx, repository, (await authority).trunk.name, config, names);
	} catch (error) {
		const refusal = writeDenied(error, "the run's logs");
		if (refusal) return asVerb(verb, refusal);
		throw error;
	}
	const { report, steps, leftovers } = measured.execution;
	const changes: Change[] = [];
	const readings: StandardsData["standards"] = measured.readings.map(({ name, verdict, value, limit }) => {
		const standard = config.standards[name];
		const proposed = verdict === "improved" && value !== null && standard ? tightenedLimit(standard, value) : null;
		if (proposed !== null && standard && value !== null) changes.push({ name, before: limit, after: proposed, value, margin: standard.margin });
		return { name, verdict, value, limit, ...(proposed !== null ? { proposed } : {}) };
	});
	const data: StandardsData = { standards: readings, interrupted: report.interrupted, trunk: trunk.name };
	if (report.interrupted) {
		return fail(
			verb,
			"interrupted",
			`${failureSentence(report)}; nothing was pinned.`,
			["Nothing was decided: run it again when you are ready.", ...leftovers],
			{ data, steps },
		);
	}
	if (measured.failed) {
		const bad = measured.readings.filter(failing).map((reading) => `${reading.name} ${reading.verdict}`);
		return fail(
			verb,
			"gate_failed",
			`Nothing was pinned: a pin records gains, and ${bad.join(", ")}.`,
			[say`Read the diagnostics (each names the command to reproduce it), fix and commit, then run ${again}.`, ...leftovers],
			{ data, steps, diagnostics: measured.diagnostics },
		);
	}
	// The measurements must have left the tree as committed: the pin's commit would otherwise describe another tree.
	const after = await judgedTree(repository);
	if (!after || after.head !== working.head || after.branch !== working.branch || after.changes.length > 0) {
		const what = !after
			? "git could not report the tree"
			: after.head !== working.head || after.branch !== working.branch
				? "HEAD moved"
				: `${after.changes
						.slice(0, 5)
						.map((change) => quoteName(change.path))
						.join(", ")} changed`;
		return fail(
			verb,
			"dirty_worktree",
			`The measurements changed the tree (${what}); nothing was pinned.`,
			[
				"A standard's command must leave the tree as committed: .gitignore what it writes (reports, coverage folders).",
				say`Restore the tree, then run ${again}.`,
			],
			{ data, steps },
		);
	}
	if (changes.length === 0) {
		return ok(verb, `Nothing to pin: ${readings.map((reading) => `${reading.name} ${reading.verdict}`).join(", ")}; no gain beyond its margin.`, data, {
			steps,
			hints: [...leftovers, "A limit moves only when the measurement beats it by more than the standard's `margin`."],
		});
	}

	// 3. Edit: each limit's number, nothing else.
	const decoded = new TextDecoder("utf-8", { ignoreBOM: true }).decode(configBytes);
	const bom = decoded.startsWith(BOM) ? BOM : "";
	const original = decoded.slice(bom.length);
	let text = original;
	for (const change of changes) {
		const edit = setKey(text, ["standards", change.name, "limit"], String(change.after));
		if (!edit.ok)
			return pinFailed(
				verb,
				`discern.toml's \`standards.${change.name}.limit\` cannot be edited in place: ${endSentence(clip(edit.reason, 300))}`,
				data,
				steps,
				say`Set it by hand to ${change.after} and commit discern.toml alone.`,
			);
		text = edit.text;
	}
	const checked = parseConfig(text);
	const limitsHold = checked.ok && changes.every((change) => checked.config.standards[change.name]?.limit === change.after);
	if (!checked.ok || !limitsHold)
		return pinFailed(
			verb,
			"The edited discern.toml would not read back with the new limits; nothing was written.",
			data,
			steps,
			"Set the limits by hand and commit discern.toml alone.",
		);

	// 4. Write, and commit that one file (its pathspec: nothing else staged can ride along); on failure put the bytes back.
	const write = (content: string) => writeFileAtomic(repository.root, CONFIG_FILE, `${bom}${content}`, { keepMode: true });
	try {
		await write(text);
	} catch (error) {
		const refusal = writeDenied(error, CONFIG_FILE);
		if (refusal) return fail(verb, "write_denied", refusal.message, refusal.hints, { data, steps });
		throw error;
	}
	const listed = changes.map((change) => `${change.name} ${change.before} → ${change.after}`);
	const body = changes
		.map((change) => `- standards.${change.name}.limit: ${change.before} → ${change.after} (measured ${change.value}, margin ${change.margin})`)
		.join("\n");
	// The commit runs the repository's commit hooks: like a job, bounded by [gate].timeout, nothing they start left running.
	const committed = await gitWithHooks(
		["commit", "--quiet", "--only", "-m", `Pin standards: ${listed.join(", ")}`, "-m", body, "--", CONFIG_FILE],
		repository.root,
		{
			timeoutS: config.gate.timeout,
			hooks: HOOKS.commit,
			signal: ctx.signal,
		},
	);
	if (committed.stalled || committed.interrupted)
		return stoppedCommit(
			ctx,
			verb,
			{ root: repository.root, measured: working.head, stalled: committed.stalled, restore: async () => void (await write(original)), again },
			data,
			steps,
		);
	if (committed.exitCode !== 0) {
		await write(original);
		// git's advice (`hint:` lines) says nothing about why; a hook's own words do.
		const said = `${committed.stderr}\n${committed.stdout}`.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("hint:"));
		const why = oneLine(said.join(" ")) || `git commit exited ${committed.exitCode}`;
		return pinFailed(
			verb,
			`git could not commit the pin (${clip(why, 300)}); discern.toml is back as it was.`,
			data,
			steps,
			say`Fix what git reports (a commit hook, the author identity), then run ${again}.`,
		);
	}
	const pinned = changes.map((change) => change.name);
	// Hooks ran with that commit: a Proof carries over only to the commit the pin meant, checked, never assumed.
	const verified = await verifyPinCommit(repository.root, working.head, working.branch, `${bom}${text}`);
	if (!verified.ok) {
		const at = verified.head ? `HEAD is now ${verified.head.slice(0, 7)}, and ` : "";
		return fail(
			verb,
			"pin_failed",
			`git committed something other than the pin (a commit hook?): ${at}${verified.problems.join("; ")}. No Proof was carried over; the commit stays as it is for you to inspect.`,
			[
				`Review it (\`${shellCommand("git", "show", "--stat", verified.head?.slice(0, 12) ?? "HEAD")}\`, and the hooks in \`git rev-parse --git-path hooks\`); keep it, or undo it yourself.`,
				say`Then run ${ref("done")}: it runs the gate on what is really committed.`,
			],
			{ data: { ...data, ...(verified.head ? { commit: verified.head } : {}), proof: null }, steps },
		);
	}
	const head = verified.head;

	// 5. The Proof of the commit before, carried over when it held (see carry-proof.ts for why that is sound).
	const carried = await carryProof(repository, checked.config as DiscernConfig, head, working.branch, await before, await authority, changes);
	const result: StandardsData = { ...data, pinned, commit: head, proof: carried.line };
	const committedLine = `Pinned ${listed.join(", ")} in ${head.slice(0, 7)}: checked to be one commit on ${working.head.slice(0, 7)}, changing discern.toml alone, to the bytes the pin wrote.`;
	return ok(verb, carried.line ? `${committedLine} ${carried.line}` : committedLine, result, {
		steps,
		hints: [
			...leftovers,
			carried.line
				? "The previous commit's Proof carries over: the pin changed only limits, each still met by the gate's readings."
				: say`${carried.why} Run ${ref("done")} for a Proof of the new commit.`,
		],
	});
}

/**
 * A pin's commit git did not finish: a hook ran past the time limit, or the run was interrupted, and git was stopped
 * with everything it started. Stopped before the commit, discern.toml is put back; after it (a post-commit hook), the
 * commit stays, unverified, for a person to look at.
 */
async function stoppedCommit<const Verb extends PinVerb>(
	ctx: VerbContext,
	verb: Verb,
	stop: { root: string; measured: string; stalled: string | undefined; restore: () => Promise<void>; again: VerbRef },
	data: StandardsData,
	steps: Result<Verb, StandardsData>["steps"],
): Promise<Result<Verb, StandardsData>> {
	const { say } = ctx;
	const code = stop.stalled ? "pin_failed" : "interrupted";
	const why = stop.stalled ?? "the run was interrupted";
	const stopped = { ...data, interrupted: !stop.stalled };
	const at = await gitLine(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], stop.root);
	if (at !== stop.measured)
		return fail(
			verb,
			code,
			`git committed the pin, but ${why}. No Proof was carried over; the commit stays as it is for you to inspect.`,
			[
				stop.stalled
					? "Make the hook finish in time (or raise [gate].timeout, which bounds it); review the commit, keep it or undo it yourself."
					: "Review the commit; keep it or undo it yourself.",
				say`Then run ${ref("done")}: it runs the gate on what is really committed.`,
			],
			{ data: { ...stopped, ...(at ? { commit: at } : {}), proof: null }, ...(steps ? { steps } : {}) },
		);
	await stop.restore();
	return fail(
		verb,
		code,
		`git could not commit the pin: ${why}; discern.toml is back as it was.`,
		[
			stop.stalled
				? say`Make the hook finish in time (or raise [gate].timeout, which bounds it), then run ${stop.again} again.`
				: say`Run ${stop.again} again when you are ready.`,
		],
		{ data: stopped, ...(steps ? { steps } : {}) },
	);
}

function pinFailed<const Verb extends PinVerb>(
	verb: Verb,
	message: string,
	data: StandardsData,
	steps: Result<Verb, StandardsData>["steps"],
	hint: string,
): Result<Verb, StandardsData> {
	return fail(verb, "pin_failed", message, [hint], { data, ...(steps ? { steps } : {}) });
}

/** The tree's every change as done would name it (tree-work.ts); null when git could not tell. */
async function judgedTree(repository: { root: string; commonDir: string }): Promise<WorkingState | null> {
	const work = await readTreeWork(repository.root, repository.commonDir);
	return work ? everyChange(work) : null;
}
