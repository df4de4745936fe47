import { afterAll } from "bun:test";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GENERATED_HEADER } from "../../src/agents/instructions.ts";
import type { VerbContext } from "../../src/contract/context.ts";
import { processStart } from "../../src/platform/process-start.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { BASIC_CONFIG, makeRepo, makeTempDir, runGit, testContext } from "../helpers/repo.ts";
import { makeWorktreeRepo } from "../helpers/worktree.ts";

/**
 * Every verb's core in each of its modes (success, dry-run, failure,
 * refusals), each arranged in a real repository. The faithfulness test
 * checks the envelopes; the verb-mention scan reads their words. Import it
 * from a test file: the temp folders are removed after that file.
 */
export interface Mode {
	verb: string;
	mode: string;
	arrange: () => Promise<{ ctx: VerbContext; input: Record<string, unknown> }>;
	expectOk: boolean;
	error?: string;
	dryRun?: boolean;
}

const cleanup: string[] = [];

const doneModule = async () => {
	const verb = LOOSE_VERBS.find((candidate) => candidate.name === "done");
	if (!verb) throw new Error("unregistered verb done");
	return verb.load();
};
// Hundreds of fixture repositories: on two busy cores their removal alone outlasts bun's 5 s hook limit.
afterAll(async () => {
	await Promise.all(cleanup.map((dir) => rm(dir, { recursive: true, force: true })));
}, 60_000);

async function repo(options: Parameters<typeof makeRepo>[0] = {}) {
	const made = await makeRepo(options);
	cleanup.push(made.root);
	return made;
}

/** A folder outside every repository, for a state folder that is a link to lead to. */
async function outside(): Promise<string> {
	const dir = await makeTempDir("discern-outside-");
	cleanup.push(dir);
	return dir;
}

async function notARepo(): Promise<VerbContext> {
	const dir = await makeTempDir();
	cleanup.push(dir);
	return testContext(dir);
}

const configured = async (input: Record<string, unknown> = {}) => ({ ctx: (await repo({ config: BASIC_CONFIG })).ctx(), input });

/** A gate whose caller was interrupted before its first job: every job is cancelled, nothing is decided. */
const interrupted = async () => {
	const controller = new AbortController();
	controller.abort("SIGINT");
	return { ctx: (await repo({ config: BASIC_CONFIG })).ctx({ signal: controller.signal }), input: {} };
};

/** A checkout whose lock a live process (this one) holds. */
const lockedBy =
	(input: Record<string, unknown> = {}) =>
	async () => {
		const made = await repo({ config: BASIC_CONFIG });
		await mkdir(join(made.root, ".git", "discern"), { recursive: true });
		await writeFile(
			join(made.root, ".git", "discern", "lock"),
			JSON.stringify({ pid: process.pid, verb: "done", since: "now", nonce: "held", started: processStart(process.pid) }),
		);
		return { ctx: made.ctx(), input };
	};

/** A file where discern's state folder (`.git/discern`) belongs: its lock cannot be written. */
const stateBlocked = async () => {
	const made = await repo({ config: BASIC_CONFIG });
	await writeFile(join(made.root, ".git", "discern"), "in the way");
	return { ctx: made.ctx(), input: {} };
};

const INVALID_CONFIG = "[gate]\ntimout = 1\n";
const ENSURE = (command: string) => `[worktree.setup]\nensure = ["${command}"]\n`;
const withConfig =
	(config: string, input: Record<string, unknown> = {}) =>
	async () => ({ ctx: (await repo({ config })).ctx(), input });
const noProject = async () => ({ ctx: (await repo()).ctx(), input: {} });
const nowhere = async () => ({ ctx: await notARepo(), input: {} });

/** A repository whose `start` puts worktrees beside it: both are removed after the file. */
async function startRepo(config: string = BASIC_CONFIG) {
	const made = await repo({ config });
	cleanup.push(`${made.root}.worktrees`);
	return made;
}
const startIn =
	(config: string, input: Record<string, unknown> = {}) =>
	async () => ({ ctx: (await startRepo(config)).ctx(), input });
/** `[worktree].seed` with one folder copied (an ignored cache), one refused (a venv) and one missing. */
const seededStart =
	(input: Record<string, unknown> = {}) =>
	async () => {
		const made = await repo({
			config: `${BASIC_CONFIG}[worktree]\nseed = ["cache", ".venv", "target"]\n`,
			files: { ".gitignore": "cache/\n.venv/\ntarget/\n" },
		});
		cleanup.push(`${made.root}.worktrees`);
		await made.write("cache/kept.txt", "warm\n");
		await made.write(".venv/pyvenv.cfg", "home = /usr/bin\n");
		return { ctx: made.ctx(), input };
	};
const START_CONFIG = `${BASIC_CONFIG}[worktree.setup]\nsteps = ["echo $DISCERN_WORKTREE_PORT > port.txt"]\n[worktree.resources.db]\ncreate = "true @db@"\ndestroy = "true @db@"\n`;
/** A configured repository with a linked worktree `agent/<name>` (its task record written as `start` would), `commits` ahead of the trunk. */
async function withWorktree(name: string, options: { commits?: number; landed?: boolean; dirty?: boolean; ledger?: "ok" | "failing" } = {}) {
	// A destroy runs only what the committed discern.toml declares: the resource is declared there, the ledger names it.
	const made = await repo({
		config: options.ledger
			? `${BASIC_CONFIG}[worktree.resources.db]\ncreate = "true"\ndestroy = "${options.ledger === "ok" ? "true" : "exit 3"}"\n`
			: BASIC_CONFIG,
	});
	const path = `${made.root}.wt/${name}`;
	cleanup.push(`${made.root}.wt`);
	// The commit the branch starts from, as `start` records it (a fresh branch has not landed).
	const base = (await made.git("rev-parse", "HEAD")).trim();
	await made.git("worktree", "add", "-q", "-b", `agent/${name}`, path);
	const inside = (...args: string[]) => runGit(path, args);
	for (let i = 0; i < (options.commits ?? 0); i++) {
		await writeFile(join(path, `f${i}.txt`), String(i));
		await inside("add", "-A");
		await inside("commit", "-q", "-m", `work ${i}`);
	}
	if (options.landed) await made.git("merge", "-q", "--ff-only", `agent/${name}`);
	if (options.dirty) await writeFile(join(path, "scratch.txt"), "x");
	const gitDir = join(made.root, ".git", "worktrees", name);
	await mkdir(join(gitDir, "discern"), { recursive: true });
	const id = `${name}-a1b2c3`;
	await writeFile(
		join(gitDir, "discern", "task.json"),
		JSON.stringify({
			version: 1,
			id,
			title: name,
			brief: "b",
			branch: `agent/${name}`,
			base,
			from: "main",
			created_at: "2026-01-01T00:00:00Z",
			created_by: "discern",
		}),
	);
	if (options.ledger) {
		await mkdir(join(made.root, ".git", "discern", "resources"), { recursive: true });
		await writeFile(
			join(made.root, ".git", "discern", "resources", `${id}.json`),
			JSON.stringify({ version: 1, id, worktree: path, entries: [{ name: "db", state: "created" }] }),
		);
	}
	return { made, path, gitDir, id };
}

/** A live lock (this process) in a checkout's state folder. */
async function holdLock(gitDir: string): Promise<void> {
	await mkdir(join(gitDir, "discern"), { recursive: true });
	await writeFile(
		join(gitDir, "discern", "lock"),
		JSON.stringify({ pid: process.pid, verb: "done", since: "now", nonce: "held", started: processStart(process.pid) }),
	);
}

const inMain = (options: Parameters<typeof withWorktree>[1], input: Record<string, unknown>) => async () => ({
	ctx: (await withWorktree("task", options)).made.ctx(),
	input,
});
const inWorktree = (options: Parameters<typeof withWorktree>[1], input: Record<string, unknown>) => async () => {
	const { made, path } = await withWorktree("task", options);
	return { ctx: made.ctx({ cwd: path }), input };
};

/** A configured repository with a small map: a region `api` with a README and a page. */
const mapRepo = async (input: Record<string, unknown> = {}) => {
	const files = {
		"docs/map/README.md": "# Map\n\nThe fixture's map.\n",
		"docs/map/api/README.md": "# API\n\nThe HTTP API, see [routes](../../../src/routes.ts).\n",
		"docs/map/api/auth.md": "# Authentication\n\nA bearer token, checked by the handler.\n",
		"src/routes.ts": "export {};\n",
	};
	return { ctx: (await repo({ config: BASIC_CONFIG, files })).ctx(), input };
};

/** A repository refresh wired for Claude Code (the files as it writes them), for `uninstall`. */
const wired = (input: Record<string, unknown>) => async () => {
	const files = {
		"AGENTS.md": `${GENERATED_HEADER}\n`,
		"CLAUDE.md": "@AGENTS.md\n",
		".mcp.json": '{\n  "mcpServers": {\n    "discern": {\n      "command": "discern",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}\n',
	};
	return { ctx: (await repo({ config: `[project]\nagents = ["claude_code"]\n${BASIC_CONFIG}`, files })).ctx(), input };
};

/** A repository with a worktree `agent/x` one commit ahead of the trunk (`arrange` may change either side first). */
async function worktree(config = BASIC_CONFIG, arrange?: (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => Promise<void>) {
	const made = await makeWorktreeRepo({ config });
	cleanup.push(...made.cleanupDirs);
	await made.wtWrite("work.txt", "work\n");
	await made.wtCommit("work");
	await arrange?.(made);
	return made;
}
const inTaskWorktree = (input: Record<string, unknown>, config?: string, arrange?: Parameters<typeof worktree>[1]) => async () => ({
	ctx: testContext((await worktree(config, arrange)).wt),
	input,
});
const fromMain = (input: Record<string, unknown>, arrange?: Parameters<typeof worktree>[1]) => async () => ({
	ctx: testContext((await worktree(BASIC_CONFIG, arrange)).root),
	input,
});
const trunkMoves = async (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => {
	await made.write("work.txt", "trunk\n");
	await made.commitAll("trunk");
};
/** origin/HEAD (a file any agent can write) pointed at the task's branch: update must not commit a merge on it. */
const originHeadNamesTask = async (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => {
	await made.git("update-ref", `refs/remotes/origin/${made.branch}`, made.branch);
	await made.git("symbolic-ref", "refs/remotes/origin/HEAD", `refs/remotes/origin/${made.branch}`);
};
const lockedWorktree = async (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => {
	const gitDir = (await made.wtGit("rev-parse", "--path-format=absolute", "--git-dir")).trim();
	await mkdir(join(gitDir, "discern"), { recursive: true });
	await writeFile(
		join(gitDir, "discern", "lock"),
		JSON.stringify({ pid: process.pid, verb: "done", since: "now", nonce: "held", started: processStart(process.pid) }),
	);
};
/** The worktree of `agent/x` carries the task id `agent/y`, and another worktree is on the branch `agent/y`. */
const ambiguousTarget = async (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => {
	const gitDir = (await made.wtGit("rev-parse", "--path-format=absolute", "--git-dir")).trim();
	await mkdir(join(gitDir, "discern"), { recursive: true });
	await writeFile(
		join(gitDir, "discern", "task.json"),
		JSON.stringify({
			version: 1,
			id: "agent/y",
			title: "x",
			brief: "",
			branch: made.branch,
			base: "main",
			from: "main",
			created_at: "now",
			created_by: "discern",
		}),
	);
	await made.git("worktree", "add", "-q", "-b", "agent/y", `${made.wt}-y`);
};

/** A configured repository with two standards on a branch: `coverage` gains beyond its margin, `warnings` holds. */
const STANDARDS_CONFIG = `${BASIC_CONFIG}[standards.coverage]\nrun = "echo DISCERN_METRIC coverage 91.7"\ndirection = "up"\nlimit = 90\nmargin = 0.5\n[standards.warnings]\nrun = "echo DISCERN_METRIC warnings 3"\ndirection = "down"\nlimit = 3\n`;
const withStandards =
	(
		input: Record<string, unknown>,
		arrange?: (made: Awaited<ReturnType<typeof repo>>) => Promise<unknown>,
		config = STANDARDS_CONFIG,
		overrides: Partial<VerbContext> = {},
	) =>
	async () => {
		const made = await repo({ config });
		await made.git("switch", "-q", "-c", "feature");
		await arrange?.(made);
		return { ctx: made.ctx(overrides), input };
	};
const aborted = () => {
	const controller = new AbortController();
	controller.abort("SIGINT");
	return { signal: controller.signal };
};
/** `standards pin` and `discern_standards` with `pin: true` share every mode of a pin. */
function pinModes(verb: "standards" | "standards pin", pin: Record<string, unknown>): Mode[] {
	return [
		{ verb, mode: "pin", arrange: withStandards({ ...pin }), expectOk: true },
		{ verb, mode: "pin dry run", arrange: withStandards({ ...pin, dry_run: true }), expectOk: true, dryRun: true },
		{ verb, mode: "pin: nothing to tighten", arrange: withStandards({ ...pin, names: ["warnings"] }), expectOk: true },
		{
			verb,
			mode: "refusal: pin on a dirty tree",
			arrange: withStandards({ ...pin }, (made) => made.write("notes.txt", "wip")),
			expectOk: false,
			error: "dirty_worktree",
		},
		{
			verb,
			mode: "refusal: pin on the trunk (a commit there lands without consent)",
			arrange: withStandards({ ...pin }, (made) => made.git("switch", "-q", "main")),
			expectOk: false,
			error: "awaiting_consent",
		},
		{
			verb,
			mode: "refusal: pin on a detached HEAD",
			arrange: withStandards({ ...pin }, (made) => made.git("checkout", "-q", "--detach")),
			expectOk: false,
			error: "detached_head",
		},
		{
			verb,
			mode: "refusal: pin while a standard fails",
			arrange: withStandards({ ...pin }, undefined, STANDARDS_CONFIG.replace("limit = 3", "limit = 2")),
			expectOk: false,
			error: "gate_failed",
		},
		{
			verb,
			mode: "failure: git refuses the pin's commit",
			arrange: withStandards({ ...pin }, async (made) => {
				await writeFile(join(made.root, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
			}),
			expectOk: false,
			error: "pin_failed",
		},
		{ verb, mode: "pin interrupted", arrange: withStandards({ ...pin }, undefined, STANDARDS_CONFIG, aborted()), expectOk: false, error: "interrupted" },
		{ verb, mode: "refusal: pin an unknown standard", arrange: withStandards({ ...pin, names: ["covrage"] }), expectOk: false, error: "unknown_standard" },
		{ verb, mode: "refusal: pin while locked", arrange: lockedBy({ ...pin }), expectOk: false, error: "locked" },
		{
			verb,
			mode: "refusal: pin with the state folder blocked",
			arrange: async () => ({ ...(await stateBlocked()), input: { ...pin } }),
			expectOk: false,
			error: "write_denied",
		},
		{
			verb,
			mode: "refusal: pin without a project",
			arrange: async () => ({ ...(await noProject()), input: { ...pin } }),
			expectOk: false,
			error: "no_project",
		},
		{
			verb,
			mode: "refusal: pin outside a repository",
			arrange: async () => ({ ...(await nowhere()), input: { ...pin } }),
			expectOk: false,
			error: "no_repository",
		},
		{ verb, mode: "refusal: pin with an invalid config", arrange: withConfig(INVALID_CONFIG, { ...pin }), expectOk: false, error: "invalid_config" },
	];
}

export const MODES: Mode[] = [
	{ verb: "standards", mode: "measure", arrange: withStandards({}), expectOk: true },
	{ verb: "standards", mode: "measure some", arrange: withStandards({ names: ["warnings"] }), expectOk: true },
	{ verb: "standards", mode: "measure: none declared", arrange: () => configured(), expectOk: true },
	{ verb: "standards", mode: "dry run", arrange: withStandards({ dry_run: true }), expectOk: true, dryRun: true },
	{
		verb: "standards",
		mode: "failure: a standard regressed",
		arrange: withStandards({}, undefined, STANDARDS_CONFIG.replace("limit = 3", "limit = 2")),
		expectOk: false,
		error: "gate_failed",
	},
	{ verb: "standards", mode: "interrupted", arrange: withStandards({}, undefined, STANDARDS_CONFIG, aborted()), expectOk: false, error: "interrupted" },
	{ verb: "standards", mode: "refusal: unknown standard", arrange: withStandards({ names: ["covrage"] }), expectOk: false, error: "unknown_standard" },
	...pinModes("standards", { pin: true }),
	...pinModes("standards pin", {}),

	{ verb: "status", mode: "success", arrange: () => configured(), expectOk: true },
	{
		verb: "status",
		mode: "observation: dirty, no config",
		arrange: async () => {
			const made = await repo();
			await made.write("new.txt", "x");
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: true,
	},
	{ verb: "status", mode: "unborn branch", arrange: async () => ({ ctx: (await repo({ commit: false })).ctx(), input: {} }), expectOk: true },
	{
		verb: "status",
		mode: "detached head",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			await made.git("checkout", "-q", "--detach");
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: true,
	},
	{ verb: "status", mode: "invalid config", arrange: async () => ({ ctx: (await repo({ config: "[gate]\ntimout = 1\n" })).ctx(), input: {} }), expectOk: true },
	{ verb: "status", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: false, error: "no_repository" },

	{ verb: "start", mode: "success", arrange: startIn(START_CONFIG, { title: "A task", brief: "What to do." }), expectOk: true },
	{ verb: "start", mode: "dry-run", arrange: startIn(START_CONFIG, { name: "plan", dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "start", mode: "success: seeds copied, refused, missing", arrange: seededStart(), expectOk: true },
	{ verb: "start", mode: "dry-run: seeds", arrange: seededStart({ name: "plan", dry_run: true }), expectOk: true, dryRun: true },
	{
		verb: "start",
		mode: "failure: a setup step fails (rolled back)",
		arrange: startIn(`${BASIC_CONFIG}[worktree.setup]\nsteps = ["exit 4"]\n`),
		expectOk: false,
		error: "gate_failed",
	},
	{
		verb: "start",
		mode: "interrupted",
		arrange: async () => {
			const controller = new AbortController();
			controller.abort("SIGINT");
			return { ctx: (await startRepo()).ctx({ signal: controller.signal }), input: {} };
		},
		expectOk: false,
		error: "interrupted",
	},
	{ verb: "start", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "start", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "start", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "start", mode: "refusal: no trunk", arrange: startIn('[repository]\ntrunk = "nowhere"\n'), expectOk: false, error: "no_trunk" },
	{ verb: "start", mode: "refusal: locked", arrange: lockedBy(), expectOk: false, error: "locked" },
	{ verb: "start", mode: "refusal: state folder blocked", arrange: stateBlocked, expectOk: false, error: "write_denied" },
	{
		verb: "start",
		mode: "refusal: a bad --from",
		arrange: startIn(BASIC_CONFIG, { from: "--upload-pack=touch x" }),
		expectOk: false,
		error: "invalid_arguments",
	},
	{
		verb: "start",
		mode: "refusal: in a linked worktree",
		arrange: async () => {
			const made = await startRepo();
			const linked = `${made.root}.worktrees/linked`;
			await made.git("worktree", "add", "-q", "-b", "linked", linked);
			return { ctx: made.ctx({ cwd: linked }), input: {} };
		},
		expectOk: false,
		error: "not_main_checkout",
	},
	{ verb: "worktree list", mode: "the fleet", arrange: inMain({ commits: 1, dirty: true }, {}), expectOk: true },
	{ verb: "worktree list", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "worktree teardown", mode: "dry-run", arrange: inWorktree({ ledger: "ok" }, { dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "worktree teardown", mode: "destroys", arrange: inWorktree({ ledger: "ok" }, {}), expectOk: true },
	{
		verb: "worktree teardown",
		mode: "failure: a destroy command fails",
		arrange: inWorktree({ ledger: "failing" }, {}),
		expectOk: false,
		error: "provisioned_resources",
	},
	{ verb: "worktree teardown", mode: "refusal: main checkout", arrange: inMain({}, {}), expectOk: false, error: "not_in_worktree" },
	{
		verb: "worktree teardown",
		mode: "refusal: locked",
		arrange: async () => {
			const { made, path, gitDir } = await withWorktree("task", { ledger: "ok" });
			await holdLock(gitDir);
			return { ctx: made.ctx({ cwd: path }), input: {} };
		},
		expectOk: false,
		error: "locked",
	},
	{
		verb: "worktree teardown",
		mode: "refusal: its state folder a link",
		arrange: async () => {
			const { made, path, gitDir } = await withWorktree("task", { ledger: "ok" });
			await rm(join(gitDir, "discern"), { recursive: true, force: true });
			await symlink(await outside(), join(gitDir, "discern"));
			return { ctx: made.ctx({ cwd: path }), input: {} };
		},
		expectOk: false,
		error: "write_denied",
	},
	{ verb: "worktree teardown", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "worktree ensure", mode: "main checkout: runs nothing", arrange: withConfig(`${BASIC_CONFIG}${ENSURE("true")}`), expectOk: true },
	{
		verb: "worktree ensure",
		mode: "main checkout: dry-run skips every command",
		arrange: withConfig(`${BASIC_CONFIG}${ENSURE("true")}`, { dry_run: true }),
		expectOk: true,
		dryRun: true,
	},
	{
		verb: "worktree ensure",
		mode: "runs the ensure commands",
		arrange: withConfig(`${BASIC_CONFIG}${ENSURE("true")}`, { main_checkout: true }),
		expectOk: true,
	},
	{
		verb: "worktree ensure",
		mode: "dry-run",
		arrange: withConfig(`${BASIC_CONFIG}${ENSURE("true")}`, { main_checkout: true, dry_run: true }),
		expectOk: true,
		dryRun: true,
	},
	{
		verb: "worktree ensure",
		mode: "failure: an ensure command fails",
		arrange: withConfig(`${BASIC_CONFIG}${ENSURE("exit 3")}`, { main_checkout: true }),
		expectOk: false,
		error: "gate_failed",
	},
	{
		verb: "worktree ensure",
		mode: "interrupted",
		arrange: async () => ({
			ctx: (await repo({ config: `${BASIC_CONFIG}${ENSURE("true")}` })).ctx({ signal: AbortSignal.abort("SIGINT") }),
			input: { main_checkout: true },
		}),
		expectOk: false,
		error: "interrupted",
	},
	{ verb: "worktree ensure", mode: "refusal: locked", arrange: lockedBy(), expectOk: false, error: "locked" },
	{ verb: "worktree ensure", mode: "refusal: state folder blocked", arrange: stateBlocked, expectOk: false, error: "write_denied" },
	{ verb: "worktree ensure", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "worktree ensure", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "worktree ensure", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "refresh", mode: "writes the agent files", arrange: withConfig(`[project]\nagents = ["claude_code", "codex"]\n${BASIC_CONFIG}`), expectOk: true },
	{
		verb: "refresh",
		mode: "dry-run",
		arrange: withConfig(`[project]\nagents = ["copilot"]\n${BASIC_CONFIG}`, { dry_run: true }),
		expectOk: true,
		dryRun: true,
	},
	{
		verb: "refresh",
		mode: "refusal: a hand-written AGENTS.md",
		arrange: async () => ({ ctx: (await repo({ config: BASIC_CONFIG, files: { "AGENTS.md": "# ours\n" } })).ctx(), input: {} }),
		expectOk: false,
		error: "write_denied",
	},
	{ verb: "refresh", mode: "refusal: locked", arrange: lockedBy(), expectOk: false, error: "locked" },
	{ verb: "refresh", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "refresh", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "refresh", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "uninstall", mode: "removes", arrange: wired({ yes: true }), expectOk: true },
	{ verb: "uninstall", mode: "dry-run", arrange: wired({ dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "uninstall", mode: "the plan, without --yes", arrange: wired({}), expectOk: true, dryRun: true },
	{
		verb: "uninstall",
		mode: "refusal: an unreadable .mcp.json with discern in it",
		arrange: async () => ({ ctx: (await repo({ config: BASIC_CONFIG, files: { ".mcp.json": '{"mcpServers": {"discern": ' } })).ctx(), input: { yes: true } }),
		expectOk: false,
		error: "write_denied",
	},
	{ verb: "uninstall", mode: "refusal: a linked worktree", arrange: inMain({}, { yes: true }), expectOk: false, error: "active_worktrees" },
	{
		verb: "uninstall",
		mode: "refusal: a resource ledger",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			await mkdir(join(made.root, ".git", "discern", "resources"), { recursive: true });
			await writeFile(join(made.root, ".git", "discern", "resources", "task-a1b2c3.json"), "{}\n");
			return { ctx: made.ctx(), input: { yes: true } };
		},
		expectOk: false,
		error: "provisioned_resources",
	},
	{ verb: "uninstall", mode: "refusal: locked", arrange: lockedBy({ yes: true }), expectOk: false, error: "locked" },
	{ verb: "uninstall", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "worktree drop", mode: "dry-run", arrange: inMain({ commits: 1 }, { id: "task-a1b2c3", force: true, dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "worktree drop", mode: "forced", arrange: inMain({ commits: 1, dirty: true, ledger: "ok" }, { id: "agent/task", force: true }), expectOk: true },
	{ verb: "worktree drop", mode: "landed", arrange: inMain({ commits: 1, landed: true }, { id: "task-a1b2c3" }), expectOk: true },
	{ verb: "worktree drop", mode: "refusal: unknown id", arrange: inMain({}, { id: "task-a1b2c4" }), expectOk: false, error: "unknown_target" },
	{
		verb: "worktree drop",
		mode: "refusal: uncommitted changes",
		arrange: inMain({ dirty: true }, { id: "task-a1b2c3" }),
		expectOk: false,
		error: "dirty_worktree",
	},
	{
		verb: "worktree drop",
		mode: "refusal: unlanded commits",
		arrange: inMain({ commits: 1 }, { id: "task-a1b2c3" }),
		expectOk: false,
		error: "active_worktrees",
	},
	{
		verb: "worktree drop",
		mode: "failure: resources not destroyed",
		arrange: inMain({ ledger: "failing" }, { id: "task-a1b2c3" }),
		expectOk: false,
		error: "provisioned_resources",
	},
	{ verb: "worktree drop", mode: "refusal: in a worktree", arrange: inWorktree({}, { id: "task-a1b2c3" }), expectOk: false, error: "not_main_checkout" },
	{
		verb: "worktree drop",
		mode: "refusal: its folder is a symlink",
		arrange: async () => {
			const { made, path } = await withWorktree("task");
			await rm(path, { recursive: true, force: true });
			await symlink(made.root, path);
			return { ctx: made.ctx(), input: { id: "task-a1b2c3", force: true } };
		},
		expectOk: false,
		error: "write_denied",
	},
	{
		verb: "worktree drop",
		mode: "refusal: a gate runs there",
		arrange: async () => {
			const { made, gitDir } = await withWorktree("task", { commits: 1, landed: true });
			await holdLock(gitDir);
			return { ctx: made.ctx(), input: { id: "task-a1b2c3" } };
		},
		expectOk: false,
		error: "locked",
	},
	{
		verb: "worktree drop",
		mode: "refusal: no repository",
		arrange: async () => ({ ctx: await notARepo(), input: { id: "x" } }),
		expectOk: false,
		error: "no_repository",
	},
	{ verb: "worktree prune", mode: "nothing to prune", arrange: inMain({ commits: 1 }, {}), expectOk: true },
	{ verb: "worktree prune", mode: "the plan, without --yes", arrange: inMain({ commits: 1, landed: true }, {}), expectOk: true, dryRun: true },
	{ verb: "worktree prune", mode: "dry-run", arrange: inMain({ commits: 1, landed: true }, { yes: true, dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "worktree prune", mode: "removes", arrange: inMain({ commits: 1, landed: true, ledger: "ok" }, { yes: true }), expectOk: true },
	{
		verb: "worktree prune",
		mode: "failure: resources not destroyed",
		arrange: inMain({ commits: 1, landed: true, ledger: "failing" }, { yes: true }),
		expectOk: false,
		error: "provisioned_resources",
	},
	{ verb: "worktree prune", mode: "refusal: in a worktree", arrange: inWorktree({}, { yes: true }), expectOk: false, error: "not_main_checkout" },
	{
		verb: "worktree prune",
		mode: "refusal: locked",
		arrange: async () => {
			const { made } = await withWorktree("task", { commits: 1, landed: true });
			await holdLock(join(made.root, ".git"));
			return { ctx: made.ctx(), input: { yes: true } };
		},
		expectOk: false,
		error: "locked",
	},
	{
		verb: "worktree prune",
		mode: "refusal: the state folder a link",
		arrange: async () => {
			const { made } = await withWorktree("task", { commits: 1, landed: true });
			await rm(join(made.root, ".git", "discern"), { recursive: true, force: true });
			await symlink(await outside(), join(made.root, ".git", "discern"));
			return { ctx: made.ctx(), input: { yes: true } };
		},
		expectOk: false,
		error: "write_denied",
	},
	{ verb: "worktree prune", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "status", mode: "the fleet: a landed worktree to prune", arrange: inMain({ commits: 1, landed: true }, {}), expectOk: true },
	{ verb: "status", mode: "in a worktree discern started", arrange: inWorktree({ commits: 1 }, {}), expectOk: true },

	{ verb: "doctor", mode: "success", arrange: () => configured({ verbose: true }), expectOk: true },
	{
		verb: "doctor",
		mode: "failure: job program missing",
		arrange: async () => ({ ctx: (await repo({ config: '[jobs]\ntest = "definitely-not-a-real-program-xyz --run"\n' })).ctx(), input: {} }),
		expectOk: false,
		error: "checks_failed",
	},
	{ verb: "doctor", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: false, error: "no_repository" },

	{ verb: "docs", mode: "index", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: true },
	{ verb: "docs", mode: "page", arrange: async () => ({ ctx: await notARepo(), input: { target: "config" } }), expectOk: true },
	{ verb: "docs", mode: "search", arrange: async () => ({ ctx: await notARepo(), input: { search: "timeout" } }), expectOk: true },
	{ verb: "docs", mode: "search without matches", arrange: async () => ({ ctx: await notARepo(), input: { search: "zzqqxxnothing" } }), expectOk: true },
	{
		verb: "docs",
		mode: "refusal: unknown target",
		arrange: async () => ({ ctx: await notARepo(), input: { target: "confgi" } }),
		expectOk: false,
		error: "unknown_target",
	},

	{
		verb: "setup",
		mode: "dry-run (default)",
		arrange: async () => ({ ctx: (await repo({ files: { "package.json": '{"scripts":{"test":"vitest"}}' } })).ctx(), input: {} }),
		expectOk: true,
		dryRun: true,
	},
	{
		verb: "setup verify",
		mode: "failure: not set up yet (CI must see it)",
		arrange: async () => ({ ctx: (await repo()).ctx(), input: {} }),
		expectOk: false,
		error: "no_project",
	},
	{ verb: "setup verify", mode: "set up", arrange: () => configured(), expectOk: true },
	{ verb: "setup verify", mode: "refusal: an unknown agent", arrange: () => configured({ agents: "claude_cod" }), expectOk: false, error: "invalid_arguments" },
	{ verb: "setup verify", mode: "failure: an invalid discern.toml", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{
		verb: "setup verify",
		mode: "failure: a job's program is missing",
		arrange: withConfig('[jobs]\ntest = "discern-no-such-program --run"\n'),
		expectOk: false,
		error: "checks_failed",
	},
	{
		verb: "setup verify",
		mode: "refusal: no repository",
		arrange: async () => ({ ctx: await notARepo(), input: {} }),
		expectOk: false,
		error: "no_repository",
	},
	{ verb: "setup", mode: "confirmed", arrange: async () => ({ ctx: (await repo()).ctx(), input: { confirmed: true } }), expectOk: true },
	{
		verb: "setup",
		mode: "confirmed with dry-run",
		arrange: async () => ({ ctx: (await repo()).ctx(), input: { confirmed: true, dry_run: true } }),
		expectOk: true,
		dryRun: true,
	},
	{ verb: "setup", mode: "confirmed with discern.toml present: only the map skeleton", arrange: () => configured({ confirmed: true }), expectOk: true },
	{
		verb: "setup",
		mode: "refusal: a symlinked docs folder leads outside",
		arrange: async () => {
			const made = await repo();
			const elsewhere = await makeTempDir();
			cleanup.push(elsewhere);
			await symlink(elsewhere, join(made.root, "docs"));
			return { ctx: made.ctx(), input: { confirmed: true } };
		},
		expectOk: false,
		error: "write_denied",
	},
	{ verb: "setup", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: false, error: "no_repository" },

	{ verb: "config validate", mode: "validate", arrange: () => configured({}), expectOk: true },
	{ verb: "config get", mode: "get", arrange: () => configured({ key: "gate.timeout" }), expectOk: true },
	{ verb: "config set", mode: "set", arrange: () => configured({ key: "gate.timeout", value: "900" }), expectOk: true },
	{ verb: "config set", mode: "set dry-run", arrange: () => configured({ key: "gate.timeout", value: "900", dry_run: true }), expectOk: true, dryRun: true },
	{
		verb: "config set",
		mode: "refusal: set breaks the config",
		arrange: () => configured({ key: "gate.timeout", value: "soon" }),
		expectOk: false,
		error: "invalid_arguments",
	},
	{
		verb: "config get",
		mode: "failure: invalid config",
		arrange: async () => ({ ctx: (await repo({ config: "[jobs]\ntest = 5\n" })).ctx(), input: { key: "jobs" } }),
		expectOk: false,
		error: "invalid_config",
	},
	{
		verb: "config get",
		mode: "refusal: no project",
		arrange: async () => ({ ctx: (await repo()).ctx(), input: { key: "jobs" } }),
		expectOk: false,
		error: "no_project",
	},
	{
		verb: "config get",
		mode: "refusal: no repository",
		arrange: async () => ({ ctx: await notARepo(), input: { key: "jobs" } }),
		expectOk: false,
		error: "no_repository",
	},
	{
		verb: "config set",
		mode: "failure: invalid TOML",
		arrange: async () => ({ ctx: (await repo({ config: "[jobs\n" })).ctx(), input: { key: "gate.timeout", value: "9" } }),
		expectOk: false,
		error: "invalid_config",
	},
	{
		verb: "config set",
		mode: "refusal: no project",
		arrange: async () => ({ ctx: (await repo()).ctx(), input: { key: "gate.timeout", value: "9" } }),
		expectOk: false,
		error: "no_project",
	},
	{
		verb: "config set",
		mode: "refusal: no repository",
		arrange: async () => ({ ctx: await notARepo(), input: { key: "gate.timeout", value: "9" } }),
		expectOk: false,
		error: "no_repository",
	},
	{ verb: "config get", mode: "refusal: unknown key", arrange: () => configured({ key: "gate.timeot" }), expectOk: false, error: "invalid_arguments" },
	{
		verb: "config validate",
		mode: "failure: invalid config",
		arrange: async () => ({ ctx: (await repo({ config: "[jobs]\ntest = 5\n" })).ctx(), input: {} }),
		expectOk: false,
		error: "invalid_config",
	},
	{
		verb: "config set",
		mode: "set an inline table",
		arrange: () => configured({ key: "jobs.e2e", value: '{ run = "true", stage = "test" }' }),
		expectOk: true,
	},
	{
		verb: "config set",
		mode: "refusal: a broken inline table",
		arrange: () => configured({ key: "jobs.e2e", value: "{ run = true stage }" }),
		expectOk: false,
		error: "invalid_arguments",
	},
	{
		verb: "config set",
		mode: "refusal: set while the checkout is locked",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			// A live holder: this very process, with its real start time.
			await mkdir(join(made.root, ".git", "discern"), { recursive: true });
			await writeFile(
				join(made.root, ".git", "discern", "lock"),
				JSON.stringify({ pid: process.pid, verb: "done", since: "now", nonce: "held", started: processStart(process.pid) }),
			);
			return { ctx: made.ctx(), input: { key: "gate.timeout", value: "900" } };
		},
		expectOk: false,
		error: "locked",
	},
	{
		verb: "config set",
		mode: "refusal: set through a symlinked discern.toml",
		arrange: async () => {
			const made = await repo();
			await made.write("real.toml", BASIC_CONFIG);
			await symlink("real.toml", join(made.root, "discern.toml"));
			return { ctx: made.ctx(), input: { key: "gate.timeout", value: "900" } };
		},
		expectOk: false,
		error: "write_denied",
	},
	{
		verb: "config validate",
		mode: "refusal: no project",
		arrange: async () => ({ ctx: (await repo()).ctx(), input: {} }),
		expectOk: false,
		error: "no_project",
	},
	{
		verb: "config validate",
		mode: "refusal: no repository",
		arrange: async () => ({ ctx: await notARepo(), input: {} }),
		expectOk: false,
		error: "no_repository",
	},

	{ verb: "prepare", mode: "success", arrange: () => configured(), expectOk: true },
	{ verb: "prepare", mode: "dry-run", arrange: () => configured({ dry_run: true }), expectOk: true, dryRun: true },
	{
		verb: "prepare",
		mode: "failure",
		arrange: async () => ({ ctx: (await repo({ config: '[jobs]\nlint = "exit 2"\n' })).ctx(), input: {} }),
		expectOk: false,
		error: "gate_failed",
	},
	{ verb: "prepare", mode: "interrupted", arrange: interrupted, expectOk: false, error: "interrupted" },
	{ verb: "prepare", mode: "refusal: no project", arrange: async () => ({ ctx: (await repo()).ctx(), input: {} }), expectOk: false, error: "no_project" },
	{ verb: "prepare", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "prepare", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "prepare", mode: "refusal: locked", arrange: lockedBy(), expectOk: false, error: "locked" },
	{ verb: "prepare", mode: "refusal: state folder blocked", arrange: stateBlocked, expectOk: false, error: "write_denied" },
	{ verb: "test", mode: "success", arrange: () => configured(), expectOk: true },
	{ verb: "test", mode: "dry-run", arrange: () => configured({ dry_run: true }), expectOk: true, dryRun: true },
	{
		verb: "test",
		mode: "failure",
		arrange: async () => ({ ctx: (await repo({ config: '[jobs]\ntest = "exit 1"\n' })).ctx(), input: {} }),
		expectOk: false,
		error: "gate_failed",
	},
	{ verb: "test", mode: "interrupted", arrange: interrupted, expectOk: false, error: "interrupted" },
	{ verb: "test", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: false, error: "no_repository" },
	{ verb: "test", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "test", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "test", mode: "refusal: locked", arrange: lockedBy(), expectOk: false, error: "locked" },
	{ verb: "test", mode: "refusal: state folder blocked", arrange: stateBlocked, expectOk: false, error: "write_denied" },
	{ verb: "done", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "done", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "done", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "done", mode: "refusal: nothing to prove", arrange: withConfig(""), expectOk: false, error: "nothing_to_prove" },
	{ verb: "done", mode: "refusal: locked", arrange: lockedBy(), expectOk: false, error: "locked" },
	{ verb: "done", mode: "refusal: state folder blocked", arrange: stateBlocked, expectOk: false, error: "write_denied" },
	{
		verb: "done",
		mode: "refusal: detached head",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			await made.git("checkout", "-q", "--detach");
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: false,
		error: "detached_head",
	},
	{
		verb: "done",
		mode: "refusal: the same red tree again",
		arrange: async () => {
			const made = await repo({ config: '[jobs]\ntest = "exit 1"\n' });
			const first = await (await doneModule()).run(made.ctx(), {});
			if (first.ok) throw new Error("the first run should have failed");
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: false,
		error: "unchanged_tree_rerun",
	},
	{ verb: "done", mode: "success with a Proof", arrange: () => configured(), expectOk: true },
	{ verb: "done", mode: "dry-run", arrange: () => configured({ dry_run: true }), expectOk: true, dryRun: true },
	{
		verb: "done",
		mode: "failure",
		arrange: async () => ({ ctx: (await repo({ config: '[jobs]\ntest = "exit 1"\n' })).ctx(), input: {} }),
		expectOk: false,
		error: "gate_failed",
	},
	{ verb: "done", mode: "interrupted", arrange: interrupted, expectOk: false, error: "interrupted" },
	{
		verb: "done",
		mode: "refusal: dirty tree",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			await made.write("README.md", "dirty");
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: false,
		error: "dirty_worktree",
	},
	{
		verb: "done",
		mode: "standalone on a dirty tree",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			await made.write("README.md", "dirty");
			return { ctx: made.ctx(), input: { standalone: true } };
		},
		expectOk: true,
	},
	{ verb: "improvement", mode: "success", arrange: () => configured(), expectOk: true },
	{ verb: "improvement", mode: "one category", arrange: () => configured({ category: "gate" }), expectOk: true },
	{ verb: "improvement", mode: "refusal: unknown category", arrange: () => configured({ category: "gat" }), expectOk: false, error: "unknown_category" },
	{ verb: "improvement", mode: "failure: below the floor", arrange: () => configured({ min_score: 100 }), expectOk: false, error: "below_min_score" },
	{ verb: "improvement", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "improvement", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "improvement", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "impact", mode: "success", arrange: () => configured(), expectOk: true },
	{ verb: "impact", mode: "membership", arrange: () => configured({ has: "code" }), expectOk: true },
	{ verb: "impact", mode: "refusal: unknown scope", arrange: () => configured({ has: "nope" }), expectOk: false, error: "invalid_arguments" },
	{ verb: "impact", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "impact", mode: "refusal: no project", arrange: async () => ({ ctx: (await repo()).ctx(), input: {} }), expectOk: false, error: "no_project" },
	{
		verb: "impact",
		mode: "refusal: the folder is a symlink loop",
		arrange: async () => {
			const dir = (await notARepo()).cwd;
			await symlink(join(dir, "b"), join(dir, "a"));
			await symlink(join(dir, "a"), join(dir, "b"));
			return { ctx: testContext(join(dir, "a")), input: { has: "code" } };
		},
		expectOk: false,
		error: "no_repository",
	},

	{ verb: "map", mode: "digest", arrange: () => mapRepo(), expectOk: true },
	{ verb: "map", mode: "digest without a map folder", arrange: () => configured(), expectOk: true },
	{ verb: "map", mode: "page", arrange: () => mapRepo({ target: "api/auth" }), expectOk: true },
	{ verb: "map", mode: "search", arrange: () => mapRepo({ search: "token" }), expectOk: true },
	{ verb: "map", mode: "search without matches", arrange: () => mapRepo({ search: "zzqqxxnothing" }), expectOk: true },
	{ verb: "map", mode: "refusal: unknown page", arrange: () => mapRepo({ target: "api/auht" }), expectOk: false, error: "unknown_target" },
	{ verb: "map", mode: "refusal: a target leaving the map", arrange: () => mapRepo({ target: "../../etc/passwd" }), expectOk: false, error: "unknown_target" },
	{ verb: "map", mode: "refusal: no map folder to search", arrange: () => configured({ search: "token" }), expectOk: false, error: "unknown_target" },
	{
		verb: "map",
		mode: "refusal: [map].dir outside the repository",
		arrange: withConfig(`${BASIC_CONFIG}\n[map]\ndir = "../elsewhere/"\n`),
		expectOk: false,
		error: "invalid_config",
	},
	{ verb: "map", mode: "refusal: no config", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "map", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "map", mode: "refusal: not a repository", arrange: nowhere, expectOk: false, error: "no_repository" },

	{ verb: "help", mode: "root", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: true },
	{ verb: "help", mode: "one verb", arrange: async () => ({ ctx: await notARepo(), input: { verb: "docs" } }), expectOk: true },
	{ verb: "help", mode: "one sub-command", arrange: async () => ({ ctx: await notARepo(), input: { verb: "config set" } }), expectOk: true },
	{ verb: "help", mode: "a family's sub-commands", arrange: async () => ({ ctx: await notARepo(), input: { verb: "config" } }), expectOk: true },
	{
		verb: "help",
		mode: "refusal: unknown sub-command",
		arrange: async () => ({ ctx: await notARepo(), input: { verb: "config gte" } }),
		expectOk: false,
		error: "unknown_command",
	},
	{
		verb: "help",
		mode: "refusal: unknown verb",
		arrange: async () => ({ ctx: await notARepo(), input: { verb: "stauts" } }),
		expectOk: false,
		error: "unknown_command",
	},
	{ verb: "accept", mode: "success: confirmed", arrange: inTaskWorktree({ confirmed: true }), expectOk: true },
	{
		verb: "accept",
		mode: "refusal: consent for another commit",
		arrange: inTaskWorktree({ confirmed: true, sha: "0000000" }),
		expectOk: false,
		error: "awaiting_consent",
	},
	{ verb: "accept", mode: "success from the main checkout", arrange: fromMain({ confirmed: true, target: "agent/x" }), expectOk: true },
	{ verb: "accept", mode: "dry run", arrange: inTaskWorktree({ dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "accept", mode: "refusal: awaiting consent", arrange: inTaskWorktree({}), expectOk: false, error: "awaiting_consent" },
	{ verb: "accept", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "accept", mode: "refusal: nothing to prove", arrange: inTaskWorktree({ confirmed: true }, ""), expectOk: false, error: "nothing_to_prove" },
	{ verb: "accept", mode: "refusal: invalid config", arrange: inTaskWorktree({ confirmed: true }, INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "accept", mode: "refusal: no target from the main checkout", arrange: fromMain({ confirmed: true }), expectOk: false, error: "unknown_target" },
	{
		verb: "accept",
		mode: "refusal: another worktree",
		arrange: inTaskWorktree({ confirmed: true, target: "nope" }),
		expectOk: false,
		error: "not_main_checkout",
	},
	{
		verb: "accept",
		mode: "refusal: trunk moved",
		arrange: inTaskWorktree({ confirmed: true }, BASIC_CONFIG, trunkMoves),
		expectOk: false,
		error: "trunk_moved",
	},
	{
		verb: "accept",
		mode: "refusal: dirty",
		arrange: inTaskWorktree({ confirmed: true }, BASIC_CONFIG, (made) => made.wtWrite("work.txt", "dirty\n")),
		expectOk: false,
		error: "dirty_worktree",
	},
	{
		verb: "accept",
		mode: "refusal: red gate",
		arrange: inTaskWorktree({ confirmed: true }, '[jobs]\ntest = "test ! -f work.txt"\n'),
		expectOk: false,
		error: "gate_failed",
	},
	{
		verb: "accept",
		mode: "refusal: target locked",
		arrange: fromMain({ confirmed: true, target: "agent/x" }, lockedWorktree),
		expectOk: false,
		error: "locked",
	},
	{
		verb: "accept",
		mode: "partial: the worktree is locked by git",
		arrange: inTaskWorktree({ confirmed: true }, BASIC_CONFIG, (made) => made.git("worktree", "lock", made.wt).then(() => undefined)),
		expectOk: false,
		error: "partial_acceptance",
	},
	{
		verb: "accept",
		mode: "refusal: ambiguous target",
		arrange: fromMain({ confirmed: true, target: "agent/y" }, ambiguousTarget),
		expectOk: false,
		error: "invalid_arguments",
	},
	{
		verb: "accept",
		mode: "refusal: detached",
		arrange: inTaskWorktree({ confirmed: true }, BASIC_CONFIG, (made) => made.wtGit("switch", "-q", "--detach").then(() => undefined)),
		expectOk: false,
		error: "detached_head",
	},
	{
		verb: "update",
		mode: "success: merge",
		arrange: inTaskWorktree({}, BASIC_CONFIG, async (made) => {
			await made.write("other.txt", "x\n");
			await made.commitAll("trunk");
		}),
		expectOk: true,
	},
	{
		verb: "update",
		mode: "dry run",
		arrange: inTaskWorktree({ dry_run: true }, BASIC_CONFIG, async (made) => {
			await made.write("other.txt", "x\n");
			await made.commitAll("trunk");
		}),
		expectOk: true,
		dryRun: true,
	},
	{ verb: "update", mode: "refusal: conflict", arrange: inTaskWorktree({}, BASIC_CONFIG, trunkMoves), expectOk: false, error: "conflict" },
	{
		verb: "update",
		mode: "refusal: dirty",
		arrange: inTaskWorktree({}, BASIC_CONFIG, (made) => made.wtWrite("work.txt", "dirty\n")),
		expectOk: false,
		error: "dirty_worktree",
	},
	{
		verb: "update",
		mode: "refusal: an ignored file where the merge writes",
		arrange: inTaskWorktree({}, BASIC_CONFIG, async (made) => {
			await made.wtWrite(".gitignore", "*.local\n");
			await made.wtCommit("ignore");
			await made.wtWrite("app.local", "mine\n");
			await made.git("mv", "README.md", "app.local");
			await made.commitAll("trunk renames");
		}),
		expectOk: false,
		error: "dirty_worktree",
	},
	{ verb: "update", mode: "refusal: main checkout", arrange: fromMain({}), expectOk: false, error: "not_in_worktree" },
	{
		verb: "update",
		mode: "refusal: a branch origin/HEAD names as the trunk",
		arrange: inTaskWorktree({}, BASIC_CONFIG, originHeadNamesTask),
		expectOk: false,
		error: "awaiting_consent",
	},
	{ verb: "update", mode: "refusal: unknown from", arrange: inTaskWorktree({ from: "nope" }), expectOk: false, error: "unknown_target" },
	{ verb: "update", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "update", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "update", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{
		verb: "update",
		mode: "refusal: detached",
		arrange: inTaskWorktree({}, BASIC_CONFIG, (made) => made.wtGit("switch", "-q", "--detach").then(() => undefined)),
		expectOk: false,
		error: "detached_head",
	},
	{
		verb: "update",
		mode: "refusal: ensure fails",
		arrange: inTaskWorktree({}, `${BASIC_CONFIG}\n[worktree.setup]\nensure = ["exit 3"]\n`, async (made) => {
			await made.write("other.txt", "x\n");
			await made.commitAll("trunk");
		}),
		expectOk: false,
		error: "gate_failed",
	},
	{ verb: "update", mode: "refusal: locked", arrange: inTaskWorktree({}, BASIC_CONFIG, lockedWorktree), expectOk: false, error: "locked" },
];
