import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { StandardsData } from "../../src/verbs/standards/schema.ts";
import type { StartData } from "../../src/verbs/start/schema.ts";
import type { UpdateData } from "../../src/verbs/update/schema.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { detachedDaemon, survivorsByCommandLine, TAG } from "../helpers/processes.ts";
import { BASIC_CONFIG, makeRepo, makeTempDir, type TestRepo, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/**
 * Issue 21, class 5: git that runs the repository's hooks (start's checkout, update's merge, pin's commit) runs like a
 * job. Run as plain captured processes, a hook's background child holding git's output kept the verb waiting as long
 * as it lived, a setsid child outlived discern, and a hook that hung held the verb forever. Each test's bun timeout
 * stays below the sleeps its hooks start, so that on such code it fails instead of waiting.
 */
const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** `[gate].timeout` bounds the hooks; a test that expects one to hang sets it low. */
const withTimeout = (config: string, seconds: number) => `${config}\n[gate]\ntimeout = ${seconds}\n`;

/** Where a detached daemon says it has left its hook's process group. */
async function flag(): Promise<string> {
	const dir = await makeTempDir("discern-flag-");
	made.push(dir);
	return join(dir, "detached");
}

async function hook(gitDir: string, name: string, script: string): Promise<void> {
	const path = join(gitDir, "hooks", name);
	await writeFile(path, `#!/bin/sh\n${script}\n`);
	await chmod(path, 0o755);
}

async function run(verb: "start" | "update" | "standards pin", cwd: string, input: Record<string, unknown> = {}, signal?: AbortSignal) {
	const result = await invokeVerb(verb, testContext(cwd, signal ? { signal } : {}), input);
	expectValidEnvelope(verb, result);
	return result as typeof result & { error?: string };
}

describe("start: the post-checkout hook", () => {
	async function repo(config = BASIC_CONFIG): Promise<TestRepo> {
		const r = await makeRepo({ config });
		made.push(r.root, `${r.root}.worktrees`);
		return r;
	}

	test("a background child holding git's output: start returns, and the child is gone", async () => {
		const marker = `sleep 60.${TAG}21`;
		const r = await repo();
		await hook(join(r.root, ".git"), "post-checkout", `${marker} &`);
		const result = await run("start", r.root, { name: "bg" });
		expect(result.ok).toBe(true);
		expect(existsSync((result.data as StartData).path)).toBe(true);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);

	test("a setsid child of the hook is killed", async () => {
		const marker = `sleep 60.${TAG}22`;
		const r = await repo();
		await hook(join(r.root, ".git"), "post-checkout", detachedDaemon(marker, await flag()));
		const result = await run("start", r.root, { name: "daemon" });
		expect(result.ok).toBe(true);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);

	test("a hook that hangs: stopped at [gate].timeout, named, and the start rolled back", async () => {
		const marker = `sleep 60.${TAG}23`;
		const r = await repo(withTimeout(BASIC_CONFIG, 1));
		await hook(join(r.root, ".git"), "post-checkout", marker);
		const result = await run("start", r.root, { name: "hang" });
		expect(result).toMatchObject({ ok: false, error: "gate_failed" });
		expect(result.message).toContain("`git worktree add` did not finish within 1 s: the post-checkout hook");
		expect(result.message).toContain("rolled back");
		expect(result.hints?.join(" ")).toContain("[gate].timeout");
		expect((result.data as StartData).rolled_back).toBe(true);
		expect((await r.git("for-each-ref", "--format=%(refname:short)", "refs/heads/")).trim()).toBe("main");
		expect(existsSync((result.data as StartData).path)).toBe(false);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);

	test("interrupted while the hook runs: the hook's tree is stopped, the start rolled back", async () => {
		const marker = `sleep 60.${TAG}24`;
		const r = await repo();
		const started = await flag();
		await hook(join(r.root, ".git"), "post-checkout", `touch '${started}'\n${marker}`);
		const result = await run("start", r.root, { name: "stop" }, abortOnceStarted(started));
		expect(result).toMatchObject({ ok: false, error: "interrupted" });
		expect((result.data as StartData).rolled_back).toBe(true);
		expect(existsSync((result.data as StartData).path)).toBe(false);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);
});

/** A signal that fires once the hook has started (it touches `started`): an interrupt while git waits for it. */
function abortOnceStarted(started: string): AbortSignal {
	const controller = new AbortController();
	const poll = setInterval(() => {
		if (!existsSync(started)) return;
		clearInterval(poll);
		controller.abort();
	}, 20);
	controller.signal.addEventListener("abort", () => clearInterval(poll));
	setTimeout(() => controller.abort(), 10_000);
	return controller.signal;
}

describe("update: the merge hooks", () => {
	async function fixture(config = BASIC_CONFIG): Promise<WorktreeRepo> {
		const repo = await makeWorktreeRepo({ config });
		made.push(...repo.cleanupDirs);
		await repo.write("new.txt", "from trunk\n");
		await repo.commitAll("trunk work");
		return repo;
	}
	/** A merge commit, so that the commit hooks of a merge run too. */
	async function diverged(config?: string): Promise<WorktreeRepo> {
		const repo = await fixture(config);
		await repo.wtWrite("mine.txt", "mine\n");
		await repo.wtCommit("ours");
		return repo;
	}

	test("a post-merge hook's background child: update returns, and the child is gone", async () => {
		const marker = `sleep 60.${TAG}31`;
		const repo = await fixture();
		await hook(join(repo.root, ".git"), "post-merge", `${marker} &\n${detachedDaemon(`${marker}1`, await flag())}`);
		const result = await run("update", repo.wt);
		expect(result.ok).toBe(true);
		expect((result.data as UpdateData).merged).toBe(true);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
		expect(await survivorsByCommandLine(`${marker}1`)).toEqual([]);
	}, 20_000);

	test("a post-merge hook that hangs: stopped, named; the merge stands, setup.ensure did not run", async () => {
		const marker = `sleep 60.${TAG}32`;
		const repo = await fixture(withTimeout(`${BASIC_CONFIG}\n[worktree.setup]\nensure = ["touch .ensured"]\n`, 1));
		await hook(join(repo.root, ".git"), "post-merge", marker);
		const result = await run("update", repo.wt);
		expect(result).toMatchObject({ ok: false, error: "gate_failed" });
		expect(result.message).toContain("the post-merge hook");
		expect(result.message).toContain("setup.ensure did not run");
		expect(result.data as UpdateData).toMatchObject({ merged: true, fast_forward: true, head: await repo.sha("main") });
		expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(await repo.sha("main"));
		expect(existsSync(join(repo.wt, ".ensured"))).toBe(false);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);

	test("a pre-merge-commit hook that hangs: stopped, named, and the merge undone", async () => {
		const marker = `sleep 60.${TAG}33`;
		const repo = await diverged(withTimeout(BASIC_CONFIG, 1));
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		await hook(join(repo.root, ".git"), "pre-merge-commit", `${marker} &\n${marker}1`);
		const result = await run("update", repo.wt);
		expect(result).toMatchObject({ ok: false, error: "gate_failed" });
		expect(result.message).toContain("the pre-merge-commit hook");
		expect(result.message).toContain("The merge was undone: the branch is as it was.");
		expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(head);
		// git had already written the merged files when the hook ran: none are left behind.
		expect(await repo.wtGit("status", "--porcelain", "--untracked-files=all")).toBe("");
		expect(existsSync(join(repo.wt, "new.txt"))).toBe(false);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
		expect(await survivorsByCommandLine(`${marker}1`)).toEqual([]);
	}, 20_000);

	test("interrupted while a pre-merge-commit hook runs: interrupted, the merge undone", async () => {
		const marker = `sleep 60.${TAG}34`;
		const repo = await diverged();
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const started = await flag();
		await hook(join(repo.root, ".git"), "pre-merge-commit", `touch '${started}'\n${marker}`);
		const result = await run("update", repo.wt, {}, abortOnceStarted(started));
		expect(result).toMatchObject({ ok: false, error: "interrupted" });
		expect(result.message).toContain("The merge was undone: the branch is as it was.");
		expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(head);
		expect(await repo.wtGit("status", "--porcelain", "--untracked-files=all")).toBe("");
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);
});

describe("standards pin: the commit hooks", () => {
	const CONFIG = `[jobs]\ntest = "true"\n\n[standards.coverage]\nrun = "echo DISCERN_METRIC coverage 91.7"\ndirection = "up"\nlimit = 90\nmargin = 0.5\n`;
	async function repo(config = CONFIG): Promise<TestRepo> {
		const r = await makeRepo({ config });
		made.push(r.root);
		await r.git("switch", "-q", "-c", "feature");
		return r;
	}
	const head = (r: TestRepo) => r.git("rev-parse", "HEAD").then((line) => line.trim());

	test("a post-commit hook's setsid child: the pin commits, and the child is gone", async () => {
		const marker = `sleep 60.${TAG}41`;
		const r = await repo();
		await hook(join(r.root, ".git"), "post-commit", `${marker} &\n${detachedDaemon(`${marker}1`, await flag())}`);
		const result = await run("standards pin", r.root);
		expect(result.ok).toBe(true);
		expect((result.data as StandardsData).pinned).toEqual(["coverage"]);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
		expect(await survivorsByCommandLine(`${marker}1`)).toEqual([]);
	}, 20_000);

	test("a pre-commit hook that hangs: stopped, named, nothing committed, discern.toml back as it was", async () => {
		const marker = `sleep 60.${TAG}42`;
		const config = withTimeout(CONFIG, 1);
		const r = await repo(config);
		const before = await head(r);
		await hook(join(r.root, ".git"), "pre-commit", marker);
		const result = await run("standards pin", r.root);
		expect(result).toMatchObject({ ok: false, error: "pin_failed" });
		expect(result.message).toContain("`git commit` did not finish within 1 s: the pre-commit hook");
		expect(result.message).toContain("discern.toml is back as it was");
		expect(await head(r)).toBe(before);
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toBe(config);
		expect(await r.git("status", "--porcelain")).toBe("");
		expect(existsSync(join(r.root, ".git", "index.lock"))).toBe(false);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);

	test("a post-commit hook that hangs: stopped, named; the commit stays, no Proof carried over", async () => {
		const marker = `sleep 60.${TAG}43`;
		const r = await repo(withTimeout(CONFIG, 1));
		const before = await head(r);
		await hook(join(r.root, ".git"), "post-commit", marker);
		const result = await run("standards pin", r.root);
		expect(result).toMatchObject({ ok: false, error: "pin_failed" });
		expect(result.message).toContain("git committed the pin, but `git commit` did not finish within 1 s: the post-commit hook");
		const after = await head(r);
		expect(after).not.toBe(before);
		expect(result.data as StandardsData).toMatchObject({ commit: after, proof: null });
		expect(await r.git("status", "--porcelain")).toBe("");
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);

	test("interrupted while a pre-commit hook runs: interrupted, nothing committed, discern.toml back as it was", async () => {
		const marker = `sleep 60.${TAG}44`;
		const r = await repo();
		const before = await head(r);
		const started = await flag();
		await hook(join(r.root, ".git"), "pre-commit", `touch '${started}'\n${marker}`);
		const result = await run("standards pin", r.root, {}, abortOnceStarted(started));
		expect(result).toMatchObject({ ok: false, error: "interrupted" });
		expect((result.data as StandardsData).interrupted).toBe(true);
		expect(await head(r)).toBe(before);
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toBe(CONFIG);
		expect(await r.git("status", "--porcelain")).toBe("");
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);

	test("interrupted while a post-commit hook runs: interrupted, the commit kept (not put back under it), no Proof", async () => {
		const marker = `sleep 60.${TAG}45`;
		const r = await repo();
		const before = await head(r);
		const started = await flag();
		await hook(join(r.root, ".git"), "post-commit", `touch '${started}'\n${marker}`);
		const result = await run("standards pin", r.root, {}, abortOnceStarted(started));
		expect(result).toMatchObject({ ok: false, error: "interrupted" });
		expect(result.message).toContain("git committed the pin, but the run was interrupted");
		const after = await head(r);
		expect(after).not.toBe(before);
		expect(result.data as StandardsData).toMatchObject({ commit: after, proof: null, interrupted: true });
		expect(await r.git("status", "--porcelain")).toBe("");
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 20_000);
});
