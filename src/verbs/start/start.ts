import { mkdir, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type * as v from "valibot";
import { asVerb, type Diagnostic, fail, ok, type PlanItem, type Result, type Step } from "../../contract/envelope.ts";
import type { VerbContext } from "../../contract/context.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import { newRunDir } from "../../gate/state.ts";
import { writeDenied } from "../../gate/write-denied.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { git, gitLine } from "../../git/run.ts";
import { resolveTrunk } from "../../git/trunk.ts";
import { ref, sayFor } from "../../hints/refer.ts";
import { exists, WriteDeniedError } from "../../platform/files.ts";
import { openProject } from "../../project/open.ts";
import { clip } from "../../text/clip.ts";
import { oneLine, quoteName } from "../../text/terminal.ts";
import { type DeclaredCommand, runDeclared } from "../../worktree/declared.ts";
import { worktreeEnv } from "../../worktree/env.ts";
import { randomTail, type TailSource, worktreeId, worktreePort } from "../../worktree/id.ts";
import { type Ledger, writeLedger } from "../../worktree/ledger.ts";
import { destroyResourcesDetailed } from "../../worktree/resources.ts";
import { writeTask } from "../../worktree/task.ts";
import { expandTokens, tokenTable, unknownTokens } from "../../worktree/tokens.ts";
import type { StartData, StartInput } from "./schema.ts";

type StartResult = Result<"start", StartData>;

/** What tests may replace: the id's random tail (to force a collision). */
export interface StartDeps {
	tail: TailSource;
}

/**
 * A new worktree for one task, in this order: branch and worktree → task
 * record → env values → resources (ledger entry before each create) →
 * setup steps → ensure steps. Any failure undoes exactly what this call
 * created, last first. Never adopts an existing branch or folder.
 */
export async function start(ctx: VerbContext, input: v.InferOutput<typeof StartInput>, deps: StartDeps = { tail: randomTail }): Promise<StartResult> {
	const say = sayFor(ctx.surface);
	if (ctx.signal.aborted) return fail("start", "interrupted", "The start was interrupted before anything was created.", [say`Run ${ref("start")} again when you are ready.`]);
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("start", opened.refusal);
	const { repository, config } = opened;
	if (repository.location !== "main") {
		const main = await mainCheckout(repository);
		return fail("start", "not_main_checkout", `This is a linked worktree (${quoteName(repository.root)}): a task starts from the main checkout${main ? `, ${quoteName(main)}` : ""}.`, [
			main ? say`Run ${ref("start")} in ${quoteName(main)}.` : say`Run ${ref("start")} in the repository's main checkout.`,
		]);
	}

	const badTokens = Object.entries(config.worktree.resources).flatMap(([name, resource]) =>
		[...unknownTokens(resource.create), ...unknownTokens(resource.destroy)].map((token) => `[worktree.resources.${name}] uses @${token}@`),
	);
	if (badTokens.length > 0) {
		return fail("start", "invalid_config", `discern.toml names tokens discern does not know: ${clip([...new Set(badTokens)].join("; "), 500)}. Known: @worktree@, @db@, @port@, @project_slug@, @dir@.`, [
			say`Fix the resource commands, then run ${ref("start")}; ${ref("docs", { target: "config" })} lists the tokens.`,
		]);
	}

	const base = await resolveBase(ctx, repository, config, input.from);
	if (!base.ok) return base.refusal;
	const id = worktreeId(input, deps.tail);
	const branch = `${config.repository.branch_prefix}${id}`;
	if ((await git(["check-ref-format", "--branch", branch], repository.root)).exitCode !== 0) {
		return fail("start", "invalid_config", `[repository].branch_prefix ${quoteName(clip(config.repository.branch_prefix))} does not make a valid branch name (${quoteName(branch)}).`, [
			say`Fix branch_prefix in discern.toml (e.g. "agent/"), then run ${ref("start")}.`,
		]);
	}
	const parent = config.worktree.root === "" ? `${repository.root}.worktrees` : resolve(repository.root, config.worktree.root);
	const path = join(parent, id);
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
	const resources = Object.entries(config.worktree.resources).map(([name, resource]) => ({ name, create: expandTokens(resource.create, table), destroy: expandTokens(resource.destroy, table) }));
	const commands: DeclaredCommand[] = [
		...config.worktree.setup.steps.map((command, index) => ({ label: `setup ${index + 1}`, kind: "setup_step" as const, command })),
		...config.worktree.setup.ensure.map((command, index) => ({ label: `ensure ${index + 1}`, kind: "ensure" as const, command })),
	];

	if (input.dry_run) {
		const plan: PlanItem[] = [
			{ kind: "branch", label: branch, disposition: "run", note: `from ${base.from} (${base.sha.slice(0, 12)})` },
			{ kind: "worktree", label: path, disposition: "run" },
			...resources.map((resource) => ({ kind: "resource", label: resource.name, disposition: "run" as const, note: resource.create })),
			...commands.map((command) => ({ kind: command.kind, label: command.label, disposition: "run" as const, note: command.command })),
		];
		return ok("start", `Would start ${quoteName(branch)} at ${quoteName(path)}; nothing was created (a real start draws a new id).`, data, { dry_run: true, plan });
	}

	return create(ctx, { repository, config, data, resources, commands, from: base.from });
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
	parent: boolean;
	worktree: boolean;
	branch: boolean;
	ledger: boolean;
}

async function create(ctx: VerbContext, run: Creation): Promise<StartResult> {
	const say = sayFor(ctx.surface);
	const { repository, config, data } = run;
	const made: Made = { parent: false, worktree: false, branch: false, ledger: false };
	const steps: Step[] = [];
	const diagnostics: Diagnostic[] = [];
	// Commands see discern's environment, where they are, and the worktree's env values.
	let commandEnv: Record<string, string> = { ...defined(ctx.env), DISCERN_ROOT: data.path, ...data.env };
	const failure = (code: "gate_failed" | "interrupted" | "write_denied", what: string) => ({ code, what });
	let failed: { code: "gate_failed" | "interrupted" | "write_denied"; what: string } | null = null;

	try {
		const parent = dirname(data.path);
		if (!(await exists(parent))) {
			await mkdir(parent, { recursive: true });
			made.parent = true;
		}
		const added = await git(["worktree", "add", "--quiet", "-b", data.branch, "--", data.path, data.base], repository.root);
		// A failed add may still have made the branch (deleted only while at the base) or registered the
		// worktree; a folder git did not register is not ours to remove.
		made.branch = true;
		made.worktree = added.exitCode === 0 || (await isRegistered(repository.root, data.path));
		if (added.exitCode !== 0) throw new StartStepError(`git worktree add failed: ${clip(oneLine(added.stderr.trim()) || `exit ${added.exitCode}`, 500)}`);

		const gitDir = await gitLine(["rev-parse", "--path-format=absolute", "--git-dir"], data.path);
		if (!gitDir) throw new StartStepError("git cannot read the new worktree's admin dir");
		await writeTask(gitDir, {
			version: 1,
			id: data.id,
			title: data.title,
			brief: data.brief,
			branch: data.branch,
			base: data.base,
			from: run.from,
			created_at: new Date().toISOString(),
			created_by: "discern",
		});

		const env = await worktreeEnv({
			env: ctx.env,
			inheritEnv: config.worktree.inherit_env,
			envFiles: config.worktree.env_files,
			mainRoot: repository.root,
			worktree: data.path,
			id: data.id,
			port: data.port,
		});
		commandEnv = { ...defined(ctx.env), DISCERN_ROOT: data.path, ...env.values };

		const logDir = await newRunDir(repository.gitDir, "start");
		const options = { cwd: data.path, env: commandEnv, signal: ctx.signal, logDir, timeoutS: config.gate.timeout, ...(ctx.progress ? { onEvent: ctx.progress } : {}) };
		const ledger: Ledger = { version: 1, id: data.id, worktree: data.path, entries: [] };
		for (const resource of run.resources) {
			const entry = { ...resource, state: "creating" as const } as Ledger["entries"][number];
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
				failed = created.interrupted ? failure("interrupted", "the run was interrupted") : failure("gate_failed", `creating the resource \`${resource.name}\` failed`);
				break;
			}
		}
		for (const command of failed ? [] : run.commands) {
			const ran = await runDeclared(command, options);
			if (ran.step) steps.push(ran.step);
			diagnostics.push(...ran.diagnostics);
			if (!ran.ok) {
				failed = ran.interrupted ? failure("interrupted", "the run was interrupted") : failure("gate_failed", `${command.kind === "ensure" ? "setup.ensure" : "setup.steps"} command \`${clip(oneLine(command.command), 200)}\` failed`);
				break;
			}
		}
	} catch (error) {
		const refusal =
			error instanceof StartStepError ? null : error instanceof WriteDeniedError ? { message: `discern will not write there: ${error.message}` } : writeDenied(error, "the new worktree's state");
		if (!refusal && !(error instanceof StartStepError)) {
			await rollBack(repository, data, made, commandEnv);
			throw error;
		}
		failed = refusal ? failure("write_denied", refusal.message.replace(/\.$/, "")) : failure("gate_failed", (error as Error).message);
	}

	if (failed) {
		const rollback = await rollBack(repository, data, made, commandEnv);
		steps.push(...rollback.steps);
		diagnostics.push(...rollback.diagnostics);
		const clean = rollback.leftBehind.length === 0;
		const undone = clean
			? "Everything this call created was rolled back."
			: `The rollback left behind: ${clip(rollback.leftBehind.join("; "), 1_000)}.`;
		const message = `Start failed: ${failed.what}. ${undone}`;
		const hints: [string, ...string[]] =
			failed.code === "interrupted"
				? [say`Nothing is left of this start; run ${ref("start")} again when you are ready.`]
				: [say`Read the diagnostics (each names the command that failed), fix discern.toml or the environment, then run ${ref("start")} again.`];
		if (!clean) hints.push("Remove what was left behind by hand (the message names it) before starting again.");
		return fail("start", failed.code, message, hints, { data: { ...data, rolled_back: clean, left_behind: rollback.leftBehind }, steps, diagnostics });
	}

	return ok("start", `Started ${quoteName(data.id)} on branch ${quoteName(data.branch)}: work in ${quoteName(data.path)} now.`, data, {
		steps,
		hints: [
			say`Work only in ${quoteName(data.path)} from now on: edit and commit there, iterate with ${ref("prepare")}, and run ${ref("done")} once the work is committed.`,
		],
	});
}

/** A step of the start that failed in an expected way (git refused): rolled back and reported, not a crash. */
class StartStepError extends Error {
	override readonly name = "StartStepError";
}

/** Undo, last first: resources, the worktree, the branch (only while it is still at the base), the folders this call made. */
async function rollBack(repository: RepositoryLocation, data: StartData, made: Made, env: Record<string, string>) {
	const leftBehind: string[] = [];
	const steps: Step[] = [];
	const diagnostics: Diagnostic[] = [];
	if (made.ledger) {
		// The caller's signal may be the reason for the rollback: the rollback itself must still run.
		const destroyed = await destroyResourcesDetailed(repository.commonDir, data.id, { cwd: (await exists(data.path)) ? data.path : repository.root, env, signal: new AbortController().signal });
		steps.push(...destroyed.steps);
		diagnostics.push(...destroyed.diagnostics);
		for (const problem of destroyed.failed) leftBehind.push(`resource ${problem.name} (${problem.message})`);
	}
	if (made.worktree) {
		const removed = await git(["worktree", "remove", "--force", "--", data.path], repository.root);
		if (removed.exitCode !== 0 && (await exists(data.path))) await rm(data.path, { recursive: true, force: true }).catch(() => undefined);
		await git(["worktree", "prune"], repository.root);
		if (await exists(data.path)) leftBehind.push(`the folder ${quoteName(data.path)}`);
	}
	if (made.branch && (await branchExists(repository.root, data.branch))) {
		// Compare-and-swap: a branch that moved past the base holds someone's work and stays.
		const deleted = await git(["update-ref", "-d", `refs/heads/${data.branch}`, data.base], repository.root);
		if (deleted.exitCode !== 0) leftBehind.push(`the branch ${quoteName(data.branch)}`);
	}
	if (made.parent) await rmdir(dirname(data.path)).catch(() => undefined);
	return { leftBehind, steps, diagnostics };
}

type Base = { ok: true; sha: string; from: string } | { ok: false; refusal: StartResult };

/** The commit the branch starts from: `from` resolved to a commit (never read as an option), else the trunk. */
async function resolveBase(ctx: VerbContext, repository: RepositoryLocation, config: DiscernConfig, from: string | undefined): Promise<Base> {
	const say = sayFor(ctx.surface);
	if (from !== undefined) {
		const shown = quoteName(clip(from));
		if (from === "" || from.startsWith("-") || /[\u0000-\u001f\u007f]/.test(from)) {
			return { ok: false, refusal: fail("start", "invalid_arguments", `${shown} is not a ref name to start from.`, [say`Pass a branch, tag or commit: ${ref("start", { from: "main" })}.`]) };
		}
		const sha = await gitLine(["rev-parse", "--verify", "--quiet", "--end-of-options", `${from}^{commit}`], repository.root);
		if (!sha) return { ok: false, refusal: fail("start", "invalid_arguments", `No commit is named ${shown} here.`, [say`Pass an existing branch, tag or commit, or leave \`from\` out to start from the trunk.`]) };
		return { ok: true, sha, from };
	}
	const trunk = await resolveTrunk(repository.root, config.repository.trunk, ctx.env.DISCERN_TRUNK);
	if (!trunk.name || !trunk.exists) {
		const named = trunk.name ? `The trunk ${quoteName(trunk.name)} has no commit here` : "No trunk could be decided";
		return {
			ok: false,
			refusal: fail("start", "no_trunk", `${named}: a task branch starts from the trunk.`, [
				"Set [repository].trunk in discern.toml to the landing branch (and commit on it), or set DISCERN_TRUNK.",
				say`Or start from another ref: ${ref("start", { from: "REF" })}.`,
			]),
		};
	}
	const sha = trunk.sha || (await gitLine(["rev-parse", "--verify", "--quiet", `refs/heads/${trunk.name}^{commit}`], repository.root));
	if (!sha) return { ok: false, refusal: fail("start", "no_trunk", `The trunk ${quoteName(trunk.name)} cannot be read.`, ["Repair the trunk branch, then try again."]) };
	return { ok: true, sha, from: trunk.name };
}

async function isRegistered(root: string, path: string): Promise<boolean> {
	const listed = await git(["worktree", "list", "--porcelain", "-z"], root);
	return listed.exitCode === 0 && listed.stdout.split("\0").includes(`worktree ${path}`);
}

async function branchExists(root: string, branch: string): Promise<boolean> {
	return (await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], root)).exitCode === 0;
}

/** The main checkout's folder: the first entry git lists. */
async function mainCheckout(repository: RepositoryLocation): Promise<string | null> {
	const listed = await git(["worktree", "list", "--porcelain", "-z"], repository.root);
	const first = listed.exitCode === 0 ? listed.stdout.split("\0")[0] : undefined;
	return first?.startsWith("worktree ") ? first.slice("worktree ".length) : basename(repository.commonDir) === ".git" ? dirname(repository.commonDir) : null;
}

function defined(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
	return out;
}
