import { mkdir, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type * as v from "valibot";
import type { RunningBinary } from "../../agents/command.ts";
import { refresh } from "../../agents/refresh.ts";
import { openProject } from "../../config/open-project.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, type Diagnostic, fail, ok, type PlanItem, type Step } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { gitWithHooks, HOOKS } from "../../git/hooked.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { git, gitLine } from "../../git/run.ts";
import { openLedger } from "../../jobs/leftovers.ts";
import { newRunDir } from "../../jobs/run-folders.ts";
import { exists, WriteDeniedError } from "../../platform/files.ts";
import { writeDenied } from "../../platform/write-denied.ts";
import { clip } from "../../text/clip.ts";
import { oneLine, quoteName } from "../../text/terminal.ts";
import { type DeclaredCommand, runDeclared } from "../../worktree/declared.ts";
import { copyEnvFiles, EnvFileRefused, envSpecFor, worktreeCommandEnv } from "../../worktree/env.ts";
import { removeWorktree } from "../../worktree/git-worktrees.ts";
import { randomTail, type TailSource, worktreeId, worktreePort } from "../../worktree/id.ts";
import { type Ledger, writeLedger } from "../../worktree/ledger.ts";
import { worktreeParent } from "../../worktree/parent.ts";
import { destroyResourcesDetailed } from "../../worktree/resources.ts";
import { judgeSeed, seedPlanItem, seedWorktree } from "../../worktree/seed.ts";
import { type TaskRecord, writeTask } from "../../worktree/task.ts";
import { expandTokens, tokenTable, unknownTokens } from "../../worktree/tokens.ts";
import { branchExists, isRegistered, mainCheckout, missingFolders, resolveBase } from "./place.ts";
import type { StartData, StartInput, StartResult } from "./schema.ts";

/** What tests may replace: the id's random tail (to force a collision). */
export interface StartDeps {
	tail: TailSource;
	/** The running binary, for the agent wiring `refresh` writes into the new worktree; none: no refresh. */
	running?: RunningBinary;
}

/**
 * A new worktree for one task, in this order: branch and worktree → task
 * record → env values → resources (ledger entry before each create) →
 * seeds (worktree/seed.ts) → setup steps → ensure steps. Any failure undoes exactly what this call
 * created, last first. Never adopts an existing branch or folder.
 */
export async function start(ctx: VerbContext, input: v.InferOutput<typeof StartInput>, deps: StartDeps = { tail: randomTail }): Promise<StartResult> {
	const { say } = ctx;
	if (ctx.signal.aborted)
		return fail("start", "interrupted", "The start was interrupted before anything was created.", [say`Run ${ref("start")} again when you are ready.`]);
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("start", opened.refusal);
	const { repository, config } = opened;
	if (repository.location !== "main") {
		const main = await mainCheckout(repository);
		return fail(
			"start",
			"not_main_checkout",
			`This is a linked worktree (${quoteName(repository.root)}): a task starts from the main checkout${main ? `, ${quoteName(main)}` : ""}.`,
			[main ? say`Run ${ref("start")} in ${quoteName(main)}.` : say`Run ${ref("start")} in the repository's main checkout.`],
		);
	}

	const badTokens = Object.entries(config.worktree.resources).flatMap(([name, resource]) =>
		[...unknownTokens(resource.create), ...unknownTokens(resource.destroy)].map((token) => `[worktree.resources.${name}] uses @${token}@`),
	);
	if (badTokens.length > 0) {
		return fail(
			"start",
			"invalid_config",
			`discern.toml names tokens discern does not know: ${clip([...new Set(badTokens)].join("; "), 500)}. Known: @worktree@, @db@, @port@, @project_slug@, @dir@.`,
			[say`Fix the resource commands, then run ${ref("start")}; ${ref("docs", { target: "config" })} lists the tokens.`],
		);
	}

	const base = await resolveBase(ctx, repository, config, input.from);
	if (!base.ok) return base.refusal;
	const id = worktreeId(input, deps.tail);
	const branch = `${config.repository.branch_prefix}${id}`;
	if ((await git(["check-ref-format", "--branch", branch], repository.root)).exitCode !== 0) {
		return fail(
			"start",
			"invalid_config",
			`[repository].branch_prefix ${quoteName(clip(config.repository.branch_prefix))} does not make a valid branch name (${quoteName(branch)}).`,
			[say`Fix branch_prefix in discern.toml (e.g. "agent/"), then run ${ref("start")}.`],
		);
	}
	const parent = await worktreeParent(repository.root, config.worktree.root);
	if (!parent.ok) {
		return fail("start", "invalid_config", `[worktree].root ${quoteName(clip(config.worktree.root))} ${parent.why}.`, [
			say`Set [worktree].root to a folder outside the main checkout (or "" for the sibling folder ${quoteName(`${basename(repository.root)}.worktrees`)}), then run ${ref("start")}.`,
		]);
	}
	const path = join(parent.path, id);
	const port = worktreePort(id);
	const names = Object.keys(config.worktree.resources);
	const data: StartData = {
		id,
		branch,
		path,
		base: base.sha,
		title: input.title ?? null,
		brief: input.brief ?? null,
		env: { DISCERN_WORKTREE_ID: id, DISCERN_WORKTREE_PORT: String(port) },
		resources: names,
		port,
	};

	if (await branchExists(repository.root, branch)) {
		return fail("start", "write_denied", `A branch ${quoteName(branch)} already exists: discern starts every task on a new branch and never adopts one.`, [
			say`Pick another name and run ${ref("start")} again, or continue that branch's work in its own worktree.`,
		]);
	}
	if (await exists(path)) {
		return fail("start", "write_denied", `Something is already at ${quoteName(path)}: discern never adopts an existing folder.`, [
			say`Move it away, or pick another name, and run ${ref("start")} again.`,
		]);
	}

	const table = tokenTable({ id, port, projectName: config.project.name, repositoryRoot: repository.root, dir: path });
	const resources = Object.entries(config.worktree.resources).map(([name, resource]) => ({
		name,
		create: expandTokens(resource.create, table),
		destroy: expandTokens(resource.destroy, table),
	}));
	const commands: DeclaredCommand[] = [
		...config.worktree.setup.steps.map((command, index) => ({ label: `setup ${index + 1}`, kind: "setup_step" as const, command })),
		...config.worktree.setup.ensure.map((command, index) => ({ label: `ensure ${index + 1}`, kind: "ensure" as const, command })),
	];

	if (input.dry_run) {
		const plan: PlanItem[] = [
			{ kind: "branch", label: branch, disposition: "run", note: `from ${base.from} (${base.sha.slice(0, 12)})` },
			{ kind: "worktree", label: path, disposition: "run" },
			...resources.map((resource) => ({ kind: "resource", label: resource.name, disposition: "run" as const, note: resource.create })),
			...(await Promise.all(config.worktree.seed.map(async (entry) => seedPlanItem(entry, await judgeSeed(repository.root, entry))))),
			...commands.map((command) => ({ kind: command.kind, label: command.label, disposition: "run" as const, note: command.command })),
		];
		return ok("start", `Would start ${quoteName(branch)} at ${quoteName(path)}; nothing was created (a real start draws a new id).`, data, {
			dry_run: true,
			plan,
		});
	}

	return create(ctx, { repository, config, data, resources, commands, from: base.from }, deps.running);
}

interface Creation {
	repository: RepositoryLocation;
	config: DiscernConfig;
	data: StartData;
	resources: { name: string; create: string; destroy: string }[];
	commands: DeclaredCommand[];
	from: string;
}

/** What this call made, so that a rollback undoes exactly that. */
interface Made {
	/** Folders this call created on the way to the worktree, the deepest first. */
	folders: string[];
	worktree: boolean;
	branch: boolean;
	ledger: boolean;
	/** The configuration the resources were created from: the rollback destroys with its commands. */
	config: DiscernConfig;
}

type FailureCode = "gate_failed" | "interrupted" | "write_denied" | "invalid_config";

async function create(ctx: VerbContext, run: Creation, running?: RunningBinary): Promise<StartResult> {
	const { say } = ctx;
	const { repository, config, data } = run;
	const made: Made = { folders: [], worktree: false, branch: false, ledger: false, config };
	const steps: Step[] = [];
	const diagnostics: Diagnostic[] = [];
	let failed: { code: FailureCode; what: string; hook?: true } | null = null;
	// Each step checks the signal after it ends: an interrupt during a git call is honoured once it returns.
	const checkpoint = () => {
		if (ctx.signal.aborted) throw new StartInterrupted();
	};

	try {
		checkpoint();
		made.folders = await missingFolders(dirname(data.path));
		if (made.folders.length > 0) await mkdir(dirname(data.path), { recursive: true });
		// The checkout runs the post-checkout hook: like a job, bounded by [gate].timeout, nothing it starts left running.
		const added = await gitWithHooks(["worktree", "add", "--quiet", "-b", data.branch, "--", data.path, data.base], repository.root, {
			timeoutS: config.gate.timeout,
			hooks: HOOKS.checkout,
			signal: ctx.signal,
		});
		// A failed add may still have made the branch (deleted only while at the base) or registered the
		// worktree; a folder git did not register is not ours to remove.
		made.branch = true;
		made.worktree = added.exitCode === 0 || (await isRegistered(repository, data.path));
		checkpoint();
		if (added.stalled) throw new HookStalled(added.stalled);
		if (added.exitCode !== 0)
			throw new StartStepError(`git worktree add failed: ${clip(oneLine(firstGitLine(added.stderr)) || `exit ${added.exitCode}`, 500)}`);
		checkpoint();

		const gitDir = await gitLine(["rev-parse", "--path-format=absolute", "--git-dir"], data.path);
		if (!gitDir) throw new StartStepError("git cannot read the new worktree's admin dir");
		const task: TaskRecord = {
			version: 1,
			id: data.id,
			title: data.title,
			brief: data.brief,
			branch: data.branch,
			base: data.base,
			from: run.from,
			created_at: new Date().toISOString(),
			created_by: "discern",
		};
		await writeTask(gitDir, task);
		checkpoint();

		// The one environment of a worktree's commands (worktree/env.ts), recorded by its spec in the ledger.
		const spec = envSpecFor(config.worktree, { mainRoot: repository.root, dir: data.path, id: data.id });
		// What was copied, and its hash, joins the task record: accept tells an edit made in the worktree since by it.
		const copies = await copyEnvFiles(repository.root, data.path, config.worktree.env_files);
		if (copies.length > 0) await writeTask(gitDir, { ...task, env_copies: copies });
		const { env: commandEnv } = await worktreeCommandEnv(ctx.env, spec);
		checkpoint();

		const logDir = await newRunDir(repository.gitDir, "start");
		// Recorded in the worktree's own state dir: a discern killed now leaves a record that `worktree drop` (and the next gate there) acts on.
		const runLedger = await openLedger(gitDir);
		try {
			const options = {
				cwd: data.path,
				env: commandEnv,
				signal: ctx.signal,
				logDir,
				timeoutS: config.gate.timeout,
				ledger: runLedger,
				...(ctx.progress ? { onEvent: ctx.progress } : {}),
			};
			const ledger: Ledger = { version: 1, id: data.id, worktree: data.path, env: spec, entries: [] };
			for (const resource of run.resources) {
				// Names and states only: a destroy takes its command from discern.toml, never from this file.
				const entry: Ledger["entries"][number] = { name: resource.name, state: "creating" };
				ledger.entries.push(entry);
				made.ledger = true;
				// Written before the command runs: a discern killed mid-create still leaves the record.
				await writeLedger(repository.commonDir, ledger);
				const created = await runDeclared({ label: `create ${resource.name}`, kind: "resource", command: resource.create }, options);
				if (created.step) steps.push(created.step);
				diagnostics.push(...created.diagnostics);
				entry.state = created.ok ? "created" : "failed";
				await writeLedger(repository.commonDir, ledger);
				if (!created.ok) {
					failed =
						created.interrupted || ctx.signal.aborted
							? { code: "interrupted", what: "the run was interrupted" }
							: { code: "gate_failed", what: `creating the resource \`${resource.name}\` failed` };
					break;
				}
				checkpoint();
			}
			if (!failed && config.worktree.seed.length > 0) {
				// After the resources, before the install steps: a warm start the install then makes right.
				// The cp carries the run's token: a discern killed mid-copy leaves it to the next gate or drop to kill.
				const seeded = await seedWorktree(repository.root, { path: data.path, gitDir }, config.worktree.seed, ctx.signal, ctx.progress, runLedger.tokenPrefix);
				steps.push(...seeded.steps);
				data.seeds = seeded.reports;
				checkpoint();
			}
			for (const command of failed ? [] : run.commands) {
				const ran = await runDeclared(command, options);
				if (ran.step) steps.push(ran.step);
				diagnostics.push(...ran.diagnostics);
				if (!ran.ok) {
					failed =
						ran.interrupted || ctx.signal.aborted
							? { code: "interrupted", what: "the run was interrupted" }
							: {
									code: "gate_failed",
									what: `${command.kind === "ensure" ? "setup.ensure" : "setup.steps"} command \`${clip(oneLine(command.command), 200)}\` failed`,
								};
					break;
				}
				checkpoint();
			}
		} finally {
			await runLedger.close();
		}
	} catch (error) {
		if (error instanceof StartInterrupted) failed = { code: "interrupted", what: "the run was interrupted" };
		else if (error instanceof HookStalled) failed = { code: "gate_failed", what: error.message, hook: true };
		else if (error instanceof StartStepError) failed = { code: "write_denied", what: error.message };
		else if (error instanceof EnvFileRefused) failed = { code: "invalid_config", what: error.message };
		else {
			const refusal =
				error instanceof WriteDeniedError ? { message: `discern will not write there: ${error.message}` } : writeDenied(error, "the new worktree's state");
			if (!refusal) {
				await rollBack(ctx, repository, data, made);
				throw error;
			}
			failed = { code: "write_denied", what: refusal.message.replace(/\.$/, "") };
		}
	}

	if (failed) {
		const rollback = await rollBack(ctx, repository, data, made);
		steps.push(...rollback.steps);
		diagnostics.push(...rollback.diagnostics);
		const clean = rollback.leftBehind.length === 0;
		const undone = clean ? "Everything this call created was rolled back." : `The rollback left behind: ${clip(rollback.leftBehind.join("; "), 1_000)}.`;
		const message = `Start failed: ${failed.what}. ${undone}`;
		const hints: [string, ...string[]] =
			failed.code === "interrupted"
				? [clean ? say`Nothing is left of this start; run ${ref("start")} again when you are ready.` : say`Run ${ref("start")} again when you are ready.`]
				: failed.hook
					? [say`Make the hook finish in time (or raise [gate].timeout, which bounds it), then run ${ref("start")} again.`]
					: failed.code === "gate_failed"
						? [say`Read the diagnostics (each names the command that failed), fix discern.toml or the environment, then run ${ref("start")} again.`]
						: failed.code === "invalid_config"
							? [say`Fix [worktree].env_files in discern.toml, then run ${ref("start")} again.`]
							: [say`The message quotes why; fix that (permissions, disk, a lock git left), then run ${ref("start")} again.`];
		if (!clean) hints.push("Remove what was left behind by hand (the message names it) before starting again.");
		return fail("start", failed.code, message, hints, { data: { ...data, rolled_back: clean, left_behind: rollback.leftBehind }, steps, diagnostics });
	}

	const wiring = await wireAgents(ctx, config, data.path, running);
	return ok("start", `Started ${quoteName(data.id)} on branch ${quoteName(data.branch)}: work in ${quoteName(data.path)} now.`, data, {
		steps,
		hints: [
			say`Work only in ${quoteName(data.path)} from now on: edit and commit there, iterate with ${ref("prepare")}, and run ${ref("done")} once the work is committed.`,
			...wiring,
			...unseeded(data),
		],
	});
}

/** A seed that was not safe to copy, or could not be: said once, so that discern.toml can drop or fix the entry. */
function unseeded(data: StartData): string[] {
	const skipped = (data.seeds ?? []).filter((seed) => seed.outcome === "refused" || seed.outcome === "failed");
	if (skipped.length === 0) return [];
	const each = skipped.map((seed) => `${quoteName(seed.path)} (${seed.why ?? seed.outcome})`).join("; ");
	return [
		`Not seeded from the main checkout: ${clip(each, 1_000)}. The worktree is fine without it; take a refused entry out of [worktree].seed in discern.toml.`,
	];
}

/**
 * The last step of a start (SPEC §6): the configured agents' wiring in the
 * new worktree, as `refresh` writes it — the instructions and MCP entries a
 * fresh checkout lacks when they are ignored rather than committed. The
 * worktree itself is sound without it, so a refusal here is said, not
 * rolled back: `refresh` in the worktree repeats it once the cause is fixed.
 */
async function wireAgents(ctx: VerbContext, config: DiscernConfig, path: string, running: RunningBinary | undefined): Promise<string[]> {
	if (!running || config.project.agents.length === 0) return [];
	const { say } = ctx;
	const { repository: _main, ...rest } = ctx;
	const wired = await refresh({ ...rest, cwd: path }, {}, running);
	if (wired.ok) return [];
	return [say`The agents' wiring in the new worktree was not refreshed: ${wired.message} Run ${ref("refresh")} there once that is fixed.`];
}

/** The signal fired between two steps: rolled back and reported as interrupted. */
class StartInterrupted extends Error {
	override readonly name = "StartInterrupted";
}

/** git's checkout hook ran past the time limit (its message says which): rolled back and reported as the project's command failing. */
class HookStalled extends Error {
	override readonly name = "HookStalled";
}

/** A step of the start that failed in an expected way (git refused): rolled back and reported, not a crash. */
class StartStepError extends Error {
	override readonly name = "StartStepError";
}

/** Undo, last first: resources, the worktree, the branch (only while it is still at the base), the folders this call made. */
async function rollBack(ctx: VerbContext, repository: RepositoryLocation, data: StartData, made: Made) {
	const leftBehind: string[] = [];
	const steps: Step[] = [];
	const diagnostics: Diagnostic[] = [];
	if (made.ledger) {
		// The caller's signal may be the reason for the rollback: the rollback itself must still run.
		// The destroy gets the create's environment, rebuilt from the ledger (worktree/env.ts).
		// The commands come from the configuration this start created them from.
		const destroyed = await destroyResourcesDetailed(repository.commonDir, data.id, {
			cwd: (await exists(data.path)) ? data.path : repository.root,
			env: ctx.env,
			signal: new AbortController().signal,
			worktree: data.path,
			config: made.config,
		});
		steps.push(...destroyed.steps);
		diagnostics.push(...destroyed.diagnostics);
		for (const problem of destroyed.failed) leftBehind.push(`resource ${problem.name} (${problem.message})`);
	}
	if (made.worktree) {
		const removed = await removeWorktree(repository.root, data.path);
		if (!removed.ok && (await exists(data.path))) await rm(data.path, { recursive: true, force: true }).catch(() => undefined);
		await git(["worktree", "prune"], repository.root);
		if (await exists(data.path)) leftBehind.push(`the folder ${quoteName(data.path)}`);
	}
	// Asked once: the branch below stays while a registered worktree still has it checked out.
	const stillRegistered = made.worktree || made.branch ? await isRegistered(repository, data.path) : false;
	if (made.worktree && stillRegistered)
		leftBehind.push(`git's registration of the worktree ${quoteName(data.path)} (\`git worktree prune\` clears it once the folder is gone)`);
	if (made.branch && (await branchExists(repository.root, data.branch))) {
		// Compare-and-swap: a branch that moved past the base holds someone's work and stays.
		// A branch a registered worktree still has checked out stays too: git would be left with a worktree on a missing branch.
		const deleted = stillRegistered ? null : await git(["update-ref", "-d", `refs/heads/${data.branch}`, data.base], repository.root);
		if (deleted?.exitCode !== 0) leftBehind.push(`the branch ${quoteName(data.branch)}`);
	}
	// Deepest first; a folder someone else filled meanwhile stays, and is named.
	for (const folder of made.folders) {
		const gone = await rmdir(folder).then(
			() => true,
			() => false,
		);
		if (!gone && (await exists(folder))) leftBehind.push(`the folder ${quoteName(folder)}`);
	}
	return { leftBehind, steps, diagnostics };
}

/** git's own error line: the first `fatal:`/`error:` line, else the first line. */
function firstGitLine(stderr: string): string {
	const lines = stderr
		.split("\n")
		.map((line) => line.trim())
		.filter(Boolean);
	return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? "";
}
