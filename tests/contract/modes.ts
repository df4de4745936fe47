import { afterAll } from "bun:test";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { processStart } from "../../src/platform/process-start.ts";
import type { VerbContext } from "../../src/contract/context.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { BASIC_CONFIG, makeRepo, makeTempDir, testContext } from "../helpers/repo.ts";
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
afterAll(async () => {
	await Promise.all(cleanup.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function repo(options: Parameters<typeof makeRepo>[0] = {}) {
	const made = await makeRepo(options);
	cleanup.push(made.root);
	return made;
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
const lockedBy = (input: Record<string, unknown> = {}) => async () => {
	const made = await repo({ config: BASIC_CONFIG });
	await mkdir(join(made.root, ".git", "discern"), { recursive: true });
	await writeFile(join(made.root, ".git", "discern", "lock"), JSON.stringify({ pid: process.pid, verb: "done", since: "now", nonce: "held", started: processStart(process.pid) }));
	return { ctx: made.ctx(), input };
};

/** A file where discern's state folder (`.git/discern`) belongs: its lock cannot be written. */
const stateBlocked = async () => {
	const made = await repo({ config: BASIC_CONFIG });
	await writeFile(join(made.root, ".git", "discern"), "in the way");
	return { ctx: made.ctx(), input: {} };
};

const INVALID_CONFIG = "[gate]\ntimout = 1\n";
const withConfig = (config: string, input: Record<string, unknown> = {}) => async () => ({ ctx: (await repo({ config })).ctx(), input });
const noProject = async () => ({ ctx: (await repo()).ctx(), input: {} });
const nowhere = async () => ({ ctx: await notARepo(), input: {} });


/** A repository with a worktree `agent/x` one commit ahead of the trunk (`arrange` may change either side first). */
async function worktree(config = BASIC_CONFIG, arrange?: (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => Promise<void>) {
	const made = await makeWorktreeRepo({ config });
	cleanup.push(...made.cleanupDirs);
	await made.wtWrite("work.txt", "work\n");
	await made.wtCommit("work");
	await arrange?.(made);
	return made;
}
const inWorktree = (input: Record<string, unknown>, config?: string, arrange?: Parameters<typeof worktree>[1]) => async () => ({ ctx: testContext((await worktree(config, arrange)).wt), input });
const fromMain = (input: Record<string, unknown>, arrange?: Parameters<typeof worktree>[1]) => async () => ({ ctx: testContext((await worktree(BASIC_CONFIG, arrange)).root), input });
const trunkMoves = async (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => {
	await made.write("work.txt", "trunk\n");
	await made.commitAll("trunk");
};
const lockedWorktree = async (made: Awaited<ReturnType<typeof makeWorktreeRepo>>) => {
	const gitDir = (await made.wtGit("rev-parse", "--path-format=absolute", "--git-dir")).trim();
	await mkdir(join(gitDir, "discern"), { recursive: true });
	await writeFile(join(gitDir, "discern", "lock"), JSON.stringify({ pid: process.pid, verb: "done", since: "now", nonce: "held", started: processStart(process.pid) }));
};

export const MODES: Mode[] = [
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
	{ verb: "docs", mode: "refusal: unknown target", arrange: async () => ({ ctx: await notARepo(), input: { target: "confgi" } }), expectOk: false, error: "unknown_target" },

	{ verb: "setup", mode: "dry-run (default)", arrange: async () => ({ ctx: (await repo({ files: { "package.json": '{"scripts":{"test":"vitest"}}' } })).ctx(), input: {} }), expectOk: true, dryRun: true },
	{ verb: "setup verify", mode: "not set up yet", arrange: async () => ({ ctx: (await repo()).ctx(), input: {} }), expectOk: true },
	{ verb: "setup verify", mode: "set up", arrange: () => configured(), expectOk: true },
	{ verb: "setup verify", mode: "refusal: an unknown agent", arrange: () => configured({ agents: "claude_cod" }), expectOk: false, error: "invalid_arguments" },
	{ verb: "setup verify", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: false, error: "no_repository" },
	{ verb: "setup", mode: "confirmed", arrange: async () => ({ ctx: (await repo()).ctx(), input: { confirmed: true } }), expectOk: true },
	{ verb: "setup", mode: "confirmed with dry-run", arrange: async () => ({ ctx: (await repo()).ctx(), input: { confirmed: true, dry_run: true } }), expectOk: true, dryRun: true },
	{ verb: "setup", mode: "refusal: config exists", arrange: () => configured({ confirmed: true }), expectOk: false, error: "write_denied" },
	{ verb: "setup", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: false, error: "no_repository" },

	{ verb: "config validate", mode: "validate", arrange: () => configured({}), expectOk: true },
	{ verb: "config get", mode: "get", arrange: () => configured({ key: "gate.timeout" }), expectOk: true },
	{ verb: "config set", mode: "set", arrange: () => configured({ key: "gate.timeout", value: "900" }), expectOk: true },
	{ verb: "config set", mode: "set dry-run", arrange: () => configured({ key: "gate.timeout", value: "900", dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "config set", mode: "refusal: set breaks the config", arrange: () => configured({ key: "gate.timeout", value: "soon" }), expectOk: false, error: "invalid_arguments" },
	{ verb: "config get", mode: "failure: invalid config", arrange: async () => ({ ctx: (await repo({ config: "[jobs]\ntest = 5\n" })).ctx(), input: { key: "jobs" } }), expectOk: false, error: "invalid_config" },
	{ verb: "config get", mode: "refusal: no project", arrange: async () => ({ ctx: (await repo()).ctx(), input: { key: "jobs" } }), expectOk: false, error: "no_project" },
	{ verb: "config get", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: { key: "jobs" } }), expectOk: false, error: "no_repository" },
	{ verb: "config set", mode: "failure: invalid TOML", arrange: async () => ({ ctx: (await repo({ config: "[jobs\n" })).ctx(), input: { key: "gate.timeout", value: "9" } }), expectOk: false, error: "invalid_config" },
	{ verb: "config set", mode: "refusal: no project", arrange: async () => ({ ctx: (await repo()).ctx(), input: { key: "gate.timeout", value: "9" } }), expectOk: false, error: "no_project" },
	{ verb: "config set", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: { key: "gate.timeout", value: "9" } }), expectOk: false, error: "no_repository" },
	{ verb: "config get", mode: "refusal: unknown key", arrange: () => configured({ key: "gate.timeot" }), expectOk: false, error: "invalid_arguments" },
	{
		verb: "config validate",
		mode: "failure: invalid config",
		arrange: async () => ({ ctx: (await repo({ config: "[jobs]\ntest = 5\n" })).ctx(), input: {} }),
		expectOk: false,
		error: "invalid_config",
	},
	{ verb: "config set", mode: "set an inline table", arrange: () => configured({ key: "jobs.e2e", value: '{ run = "true", stage = "test" }' }), expectOk: true },
	{ verb: "config set", mode: "refusal: a broken inline table", arrange: () => configured({ key: "jobs.e2e", value: "{ run = true stage }" }), expectOk: false, error: "invalid_arguments" },
	{
		verb: "config set",
		mode: "refusal: set while the checkout is locked",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			// A live holder: this very process, with its real start time.
			await mkdir(join(made.root, ".git", "discern"), { recursive: true });
			await writeFile(join(made.root, ".git", "discern", "lock"), JSON.stringify({ pid: process.pid, verb: "done", since: "now", nonce: "held", started: processStart(process.pid) }));
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
	{ verb: "config validate", mode: "refusal: no project", arrange: async () => ({ ctx: (await repo()).ctx(), input: {} }), expectOk: false, error: "no_project" },
	{ verb: "config validate", mode: "refusal: no repository", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: false, error: "no_repository" },

	{ verb: "prepare", mode: "success", arrange: () => configured(), expectOk: true },
	{ verb: "prepare", mode: "dry-run", arrange: () => configured({ dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "prepare", mode: "failure", arrange: async () => ({ ctx: (await repo({ config: '[jobs]\nlint = "exit 2"\n' })).ctx(), input: {} }), expectOk: false, error: "gate_failed" },
	{ verb: "prepare", mode: "interrupted", arrange: interrupted, expectOk: false, error: "interrupted" },
	{ verb: "prepare", mode: "refusal: no project", arrange: async () => ({ ctx: (await repo()).ctx(), input: {} }), expectOk: false, error: "no_project" },
	{ verb: "prepare", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "prepare", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "prepare", mode: "refusal: locked", arrange: lockedBy(), expectOk: false, error: "locked" },
	{ verb: "prepare", mode: "refusal: state folder blocked", arrange: stateBlocked, expectOk: false, error: "write_denied" },
	{ verb: "test", mode: "success", arrange: () => configured(), expectOk: true },
	{ verb: "test", mode: "dry-run", arrange: () => configured({ dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "test", mode: "failure", arrange: async () => ({ ctx: (await repo({ config: '[jobs]\ntest = "exit 1"\n' })).ctx(), input: {} }), expectOk: false, error: "gate_failed" },
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
	{ verb: "done", mode: "failure", arrange: async () => ({ ctx: (await repo({ config: '[jobs]\ntest = "exit 1"\n' })).ctx(), input: {} }), expectOk: false, error: "gate_failed" },
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

	{ verb: "help", mode: "root", arrange: async () => ({ ctx: await notARepo(), input: {} }), expectOk: true },
	{ verb: "help", mode: "one verb", arrange: async () => ({ ctx: await notARepo(), input: { verb: "docs" } }), expectOk: true },
	{ verb: "help", mode: "one sub-command", arrange: async () => ({ ctx: await notARepo(), input: { verb: "config set" } }), expectOk: true },
	{ verb: "help", mode: "a family's sub-commands", arrange: async () => ({ ctx: await notARepo(), input: { verb: "config" } }), expectOk: true },
	{ verb: "help", mode: "refusal: unknown sub-command", arrange: async () => ({ ctx: await notARepo(), input: { verb: "config gte" } }), expectOk: false, error: "unknown_command" },
	{ verb: "help", mode: "refusal: unknown verb", arrange: async () => ({ ctx: await notARepo(), input: { verb: "stauts" } }), expectOk: false, error: "unknown_command" },
	{ verb: "accept", mode: "success: confirmed", arrange: inWorktree({ confirmed: true }), expectOk: true },
	{ verb: "accept", mode: "success from the main checkout", arrange: fromMain({ confirmed: true, target: "agent/x" }), expectOk: true },
	{ verb: "accept", mode: "dry run", arrange: inWorktree({ dry_run: true }), expectOk: true, dryRun: true },
	{ verb: "accept", mode: "refusal: awaiting consent", arrange: inWorktree({}), expectOk: false, error: "awaiting_consent" },
	{ verb: "accept", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "accept", mode: "refusal: nothing to prove", arrange: inWorktree({ confirmed: true }, ""), expectOk: false, error: "nothing_to_prove" },
	{ verb: "accept", mode: "refusal: invalid config", arrange: inWorktree({ confirmed: true }, INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "accept", mode: "refusal: no target from the main checkout", arrange: fromMain({ confirmed: true }), expectOk: false, error: "unknown_target" },
	{ verb: "accept", mode: "refusal: another worktree", arrange: inWorktree({ confirmed: true, target: "nope" }), expectOk: false, error: "not_main_checkout" },
	{ verb: "accept", mode: "refusal: trunk moved", arrange: inWorktree({ confirmed: true }, BASIC_CONFIG, trunkMoves), expectOk: false, error: "trunk_moved" },
	{ verb: "accept", mode: "refusal: dirty", arrange: inWorktree({ confirmed: true }, BASIC_CONFIG, (made) => made.wtWrite("work.txt", "dirty\n")), expectOk: false, error: "dirty_worktree" },
	{ verb: "accept", mode: "refusal: red gate", arrange: inWorktree({ confirmed: true }, '[jobs]\ntest = "test ! -f work.txt"\n'), expectOk: false, error: "gate_failed" },
	{ verb: "accept", mode: "refusal: target locked", arrange: fromMain({ confirmed: true, target: "agent/x" }, lockedWorktree), expectOk: false, error: "locked" },
	{ verb: "accept", mode: "partial: the worktree is locked by git", arrange: inWorktree({ confirmed: true }, BASIC_CONFIG, (made) => made.git("worktree", "lock", made.wt).then(() => undefined)), expectOk: false, error: "partial_acceptance" },
	{ verb: "accept", mode: "refusal: detached", arrange: inWorktree({ confirmed: true }, BASIC_CONFIG, (made) => made.wtGit("switch", "-q", "--detach").then(() => undefined)), expectOk: false, error: "detached_head" },
	{ verb: "update", mode: "success: merge", arrange: inWorktree({}, BASIC_CONFIG, async (made) => { await made.write("other.txt", "x\n"); await made.commitAll("trunk"); }), expectOk: true },
	{ verb: "update", mode: "dry run", arrange: inWorktree({ dry_run: true }, BASIC_CONFIG, async (made) => { await made.write("other.txt", "x\n"); await made.commitAll("trunk"); }), expectOk: true, dryRun: true },
	{ verb: "update", mode: "refusal: conflict", arrange: inWorktree({}, BASIC_CONFIG, trunkMoves), expectOk: false, error: "conflict" },
	{ verb: "update", mode: "refusal: dirty", arrange: inWorktree({}, BASIC_CONFIG, (made) => made.wtWrite("work.txt", "dirty\n")), expectOk: false, error: "dirty_worktree" },
	{ verb: "update", mode: "refusal: main checkout", arrange: fromMain({}), expectOk: false, error: "not_in_worktree" },
	{ verb: "update", mode: "refusal: unknown from", arrange: inWorktree({ from: "nope" }), expectOk: false, error: "unknown_target" },
	{ verb: "update", mode: "refusal: no repository", arrange: nowhere, expectOk: false, error: "no_repository" },
	{ verb: "update", mode: "refusal: no project", arrange: noProject, expectOk: false, error: "no_project" },
	{ verb: "update", mode: "refusal: invalid config", arrange: withConfig(INVALID_CONFIG), expectOk: false, error: "invalid_config" },
	{ verb: "update", mode: "refusal: detached", arrange: inWorktree({}, BASIC_CONFIG, (made) => made.wtGit("switch", "-q", "--detach").then(() => undefined)), expectOk: false, error: "detached_head" },
	{ verb: "update", mode: "refusal: ensure fails", arrange: inWorktree({}, `${BASIC_CONFIG}\n[worktree.setup]\nensure = ["exit 3"]\n`, async (made) => { await made.write("other.txt", "x\n"); await made.commitAll("trunk"); }), expectOk: false, error: "gate_failed" },
	{ verb: "update", mode: "refusal: locked", arrange: inWorktree({}, BASIC_CONFIG, lockedWorktree), expectOk: false, error: "locked" },
];
