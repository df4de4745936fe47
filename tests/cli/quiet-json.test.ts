import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { BASIC_CONFIG, makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * The quiet rule: with --json, stdout is exactly one JSON document that
 * validates against the verb's schema, stderr is empty, and the exit code
 * follows `ok` — for every verb, in success and failure alike.
 */
let repo: TestRepo;
let bare: TestRepo;
beforeAll(async () => {
	repo = await makeRepo({ config: BASIC_CONFIG });
	bare = await makeRepo();
});
afterAll(async () => {
	await repo.remove();
	await bare.remove();
});

const CASES: { verb: string; args: string[]; where: "configured" | "bare"; exit: number }[] = [
	{ verb: "status", args: ["status"], where: "configured", exit: 0 },
	{ verb: "status", args: ["status"], where: "bare", exit: 0 },
	{ verb: "start", args: ["start", "--title", "A task", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "start", args: ["start"], where: "bare", exit: 1 },
	{ verb: "doctor", args: ["doctor"], where: "configured", exit: 0 },
	{ verb: "doctor", args: ["doctor", "--verbose"], where: "bare", exit: 0 },
	{ verb: "docs", args: ["docs"], where: "bare", exit: 0 },
	{ verb: "docs", args: ["docs", "loop"], where: "bare", exit: 0 },
	{ verb: "docs", args: ["docs", "nope-nope"], where: "bare", exit: 1 },
	{ verb: "setup", args: ["setup"], where: "bare", exit: 0 },
	{ verb: "setup verify", args: ["setup", "verify"], where: "configured", exit: 0 },
	{ verb: "setup", args: ["setup", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "setup verify", args: ["setup", "verify"], where: "bare", exit: 1 },
	{ verb: "config validate", args: ["config", "validate"], where: "configured", exit: 0 },
	{ verb: "config get", args: ["config", "get", "jobs.test"], where: "configured", exit: 0 },
	{ verb: "config validate", args: ["config", "validate"], where: "bare", exit: 1 },
	{ verb: "config set", args: ["config", "set", "gate.timeout", "900", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "config set", args: ["config", "set", "gate.timeout"], where: "configured", exit: 2 },
	{ verb: "help", args: ["config", "frobnicate"], where: "configured", exit: 2 },
	{ verb: "help", args: ["config"], where: "configured", exit: 2 },
	{ verb: "help", args: ["setup", "verfy"], where: "configured", exit: 2 },
	{ verb: "worktree list", args: ["worktree", "list"], where: "configured", exit: 0 },
	{ verb: "worktree teardown", args: ["worktree", "teardown"], where: "configured", exit: 1 },
	{ verb: "worktree ensure", args: ["worktree", "ensure", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "refresh", args: ["refresh", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "refresh", args: ["refresh"], where: "bare", exit: 1 },
	{ verb: "uninstall", args: ["uninstall", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "worktree drop", args: ["worktree", "drop", "nope"], where: "configured", exit: 1 },
	{ verb: "worktree drop", args: ["worktree", "drop"], where: "configured", exit: 2 },
	{ verb: "worktree prune", args: ["worktree", "prune"], where: "configured", exit: 0 },
	{ verb: "worktree prune", args: ["worktree", "prune", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "help", args: ["worktree", "lsit"], where: "configured", exit: 2 },
	{ verb: "help", args: ["worktree"], where: "configured", exit: 2 },
	{ verb: "prepare", args: ["prepare"], where: "configured", exit: 0 },
	{ verb: "prepare", args: ["prepare", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "test", args: ["test"], where: "configured", exit: 0 },
	{ verb: "test", args: ["test"], where: "bare", exit: 1 },
	{ verb: "done", args: ["done"], where: "configured", exit: 0 },
	{ verb: "done", args: ["done", "--dry-run"], where: "configured", exit: 0 },
	{ verb: "done", args: ["done"], where: "bare", exit: 1 },
	{ verb: "accept", args: ["accept", "--confirmed"], where: "configured", exit: 1 },
	{ verb: "accept", args: ["accept", "--dry-run", "--target", "nope"], where: "configured", exit: 1 },
	{ verb: "update", args: ["update"], where: "configured", exit: 1 },
	{ verb: "update", args: ["update", "--dry-run"], where: "bare", exit: 1 },
	{ verb: "impact", args: ["impact"], where: "configured", exit: 0 },
	{ verb: "impact", args: ["impact", "--has", "code"], where: "configured", exit: 0 },
	{ verb: "impact", args: ["impact", "--has", "nope"], where: "configured", exit: 2 },
	{ verb: "standards", args: ["standards"], where: "configured", exit: 0 },
	{ verb: "standards", args: ["standards", "nope", "other"], where: "configured", exit: 1 },
	{ verb: "standards pin", args: ["standards", "pin", "--dry-run"], where: "configured", exit: 1 },
	{ verb: "standards pin", args: ["standards", "pin", "nope"], where: "configured", exit: 1 },
	{ verb: "improvement", args: ["improvement", "--min-score", "101"], where: "configured", exit: 2 },
	{ verb: "improvement", args: ["improvement", "--min-score", "100"], where: "configured", exit: 1 },
	{ verb: "help", args: ["help"], where: "bare", exit: 0 },
	{ verb: "help", args: ["help", "status"], where: "bare", exit: 0 },
	{ verb: "help", args: ["stauts"], where: "bare", exit: 2 },
	{ verb: "docs", args: ["docs", "--bogus"], where: "bare", exit: 2 },
	{ verb: "map", args: ["map"], where: "configured", exit: 0 },
	{ verb: "map", args: ["map", "../../etc/passwd"], where: "configured", exit: 1 },
	{ verb: "map", args: ["map"], where: "bare", exit: 1 },
];

describe("--json output is one valid envelope and nothing else", () => {
	for (const testCase of CASES) {
		test(`${testCase.args.join(" ")} (${testCase.where})`, async () => {
			const cwd = testCase.where === "configured" ? repo.root : bare.root;
			const run = await runDiscern([...testCase.args, "--json"], { cwd });
			expect(run.stderr).toBe("");
			const envelope = onlyJson(run.stdout);
			expectValidEnvelope(testCase.verb, envelope);
			expect(run.exitCode).toBe(testCase.exit);
			expect(envelope.ok).toBe(testCase.exit === 0);
		});
	}

	test("every registered verb is covered above", () => {
		for (const verb of LOOSE_VERBS) expect(CASES.some((testCase) => testCase.verb === verb.name)).toBe(true);
	});

	test("--json may come before the verb, and -C moves the working directory", async () => {
		const run = await runDiscern(["--json", "-C", repo.root, "status"], { cwd: "/" });
		const envelope = onlyJson(run.stdout);
		expect(run.stderr).toBe("");
		expect((envelope.data as { root: string }).root).toBe(repo.root);
	});
});
