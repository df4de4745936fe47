import { afterEach, describe, expect, test } from "bun:test";
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gitWithHooks, HOOKS } from "../../src/git/hooked.ts";
import { detachedDaemon, survivorsByCommandLine, TAG } from "../helpers/processes.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
const dirs: string[] = [];
afterEach(async () => {
	await Promise.all([...made.splice(0).map((r) => r.remove()), ...dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))]);
});

/** A path in a temp folder of the test's: where a detached daemon says it has left its hook's process group, a trace. */
async function tempPath(name = "detached"): Promise<string> {
	const dir = await makeTempDir("discern-hooked-");
	dirs.push(dir);
	return join(dir, name);
}

async function repoWithHook(name: string, script: string): Promise<TestRepo> {
	const r = await makeRepo();
	made.push(r);
	const path = join(r.root, ".git", "hooks", name);
	await writeFile(path, `#!/bin/sh\n${script}\n`);
	await chmod(path, 0o755);
	return r;
}

/** A commit that runs the commit hooks, as `standards pin` makes one. */
const commit = (r: TestRepo, options: { timeoutS?: number; signal?: AbortSignal; graceMs?: number; subreaper?: boolean } = {}) =>
	gitWithHooks(["commit", "--quiet", "--allow-empty", "-m", "hooked"], r.root, { timeoutS: options.timeoutS ?? 60, hooks: HOOKS.commit, ...options });

const headSubject = (r: TestRepo) => r.git("log", "-1", "--format=%s").then((line) => line.trim());

// Each test's limit stays below the sleeps its hooks start: run as a plain captured process, git would wait for them.
describe("git that runs hooks runs like a job", () => {
	test("a hook's background child holding git's output neither keeps the call waiting nor outlives it", async () => {
		const marker = `sleep 60.${TAG}11`;
		const r = await repoWithHook("post-commit", `echo said-by-the-hook >&2\n${marker} &`);
		const result = await commit(r);
		expect(result).toMatchObject({ exitCode: 0, timedOut: false, interrupted: false });
		// The output is still read back, from a file rather than a pipe.
		expect(result.stderr).toContain("said-by-the-hook");
		expect(await headSubject(r)).toBe("hooked");
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 15_000);

	test("a setsid child of a hook is killed once git exits", async () => {
		const marker = `sleep 60.${TAG}12`;
		const r = await repoWithHook("post-commit", `setsid ${marker} >/dev/null 2>&1 &\n${detachedDaemon(`${marker}1`, await tempPath())}`);
		const result = await commit(r);
		expect(result.exitCode).toBe(0);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
		expect(await survivorsByCommandLine(`${marker}1`)).toEqual([]);
	}, 15_000);

	test("where discern cannot be a subreaper, the run's token finds the setsid child", async () => {
		const marker = `sleep 60.${TAG}17`;
		const r = await repoWithHook("post-commit", detachedDaemon(marker, await tempPath()));
		const result = await commit(r, { subreaper: false });
		expect(result.exitCode).toBe(0);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 15_000);

	test("a hook that hangs is stopped at the time limit, named, with everything it started", async () => {
		const marker = `sleep 60.${TAG}13`;
		const r = await repoWithHook("pre-commit", `${marker} &\n${marker}1`);
		const before = (await r.git("rev-parse", "HEAD")).trim();
		const result = await commit(r, { timeoutS: 1 });
		expect(result).toMatchObject({ timedOut: true, exitCode: 143, killedBy: "SIGTERM" });
		expect(result.stalled).toContain("`git commit` did not finish within 1 s: the pre-commit hook");
		expect(result.stalled).toContain(join(r.root, ".git", "hooks"));
		expect((await r.git("rev-parse", "HEAD")).trim()).toBe(before);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
		expect(await survivorsByCommandLine(`${marker}1`)).toEqual([]);
	}, 15_000);

	test("a hook that ignores TERM is killed after the grace", async () => {
		const marker = `sleep 60.${TAG}14`;
		const r = await repoWithHook("pre-commit", `trap '' TERM\n${marker}`);
		const result = await commit(r, { timeoutS: 1, graceMs: 300 });
		expect(result.timedOut).toBe(true);
		expect(await survivorsByCommandLine(marker)).toEqual([]);
	}, 15_000);

	test("the core.hooksPath folder is the one named", async () => {
		const r = await makeRepo();
		made.push(r);
		await r.write("githooks/pre-commit", `#!/bin/sh\nsleep 60.${TAG}15\n`);
		await chmod(join(r.root, "githooks", "pre-commit"), 0o755);
		await r.git("config", "core.hooksPath", join(r.root, "githooks"));
		const result = await commit(r, { timeoutS: 1 });
		expect(result.stalled).toContain(`the pre-commit hook (in ${join(r.root, "githooks")})`);
		expect(await survivorsByCommandLine(`sleep 60.${TAG}15`)).toEqual([]);
	}, 15_000);

	test("the caller's signal stops the whole tree", async () => {
		const marker = `sleep 60.${TAG}16`;
		const r = await repoWithHook("pre-commit", `${detachedDaemon(marker, await tempPath())}\n${marker}1`);
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 500);
		const result = await commit(r, { signal: controller.signal });
		expect(result).toMatchObject({ interrupted: true, timedOut: false });
		expect(await survivorsByCommandLine(marker)).toEqual([]);
		expect(await survivorsByCommandLine(`${marker}1`)).toEqual([]);
		expect(await gitWithHooks(["status"], r.root, { timeoutS: 10, hooks: [], signal: controller.signal })).toMatchObject({ interrupted: true });
	}, 15_000);

	test("it starts no auto maintenance, which could detach a gc for the sweep to kill half-way", async () => {
		const r = await repoWithHook("post-commit", "true");
		const trace = await tempPath("trace");
		const result = await gitWithHooks(["commit", "--quiet", "--allow-empty", "-m", "traced"], r.root, {
			timeoutS: 60,
			hooks: HOOKS.commit,
			env: { ...process.env, GIT_TRACE: trace },
		});
		expect(result.exitCode).toBe(0);
		const traced = await readFile(trace, "utf8");
		expect(traced).toContain("post-commit");
		expect(traced).not.toContain("maintenance run");
		expect(traced).not.toContain("gc --auto");
	});

	test("without hooks in the way it answers as git does", async () => {
		const r = await makeRepo();
		made.push(r);
		const failed = await gitWithHooks(["rev-parse", "--verify", "no-such-ref"], r.root, { timeoutS: 10, hooks: [] });
		expect(failed.exitCode).not.toBe(0);
		expect(failed.stderr).toContain("fatal");
		const read = await gitWithHooks(["rev-parse", "HEAD"], r.root, { timeoutS: 10, hooks: [] });
		expect(read.stdout.trim()).toBe((await r.git("rev-parse", "HEAD")).trim());
	});
});
