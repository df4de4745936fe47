import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { LOG_HEAD_BYTES, LOG_LIMIT_BYTES, LOG_TAIL_BYTES } from "../../src/jobs/log-cap.ts";
import type { GatePlan, PlannedJob } from "../../src/jobs/plan.ts";
import { pruneRuns, RUNS_BUDGET_BYTES } from "../../src/jobs/run-folders.ts";
import { runPlan } from "../../src/jobs/runner.ts";
import { done } from "../../src/proof/done.ts";
import { test as testVerb } from "../helpers/inner-loop.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * Run logs on disk stay bounded however much a job prints: each log is cut
 * to its head and tail (also while the job runs), and the runs folder keeps
 * at most a few runs and a total number of bytes. Real jobs in real
 * repositories; sizes are read from the file system.
 */
const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});

async function repo(config: string): Promise<TestRepo> {
	const r = await makeRepo({ config });
	made.push(r);
	return r;
}

/** The marker a cut log carries, and the counts it states. */
const MARKER = /\[discern\] … (\d+) bytes of output omitted here: the log keeps the first (\d+) and the last (\d+) of (\d+) bytes …\n/;
const MB = 1024 * 1024;

async function runFolders(r: TestRepo): Promise<string[]> {
	const runs = join(r.root, ".git", "discern", "runs");
	return (await readdir(runs)).sort().map((name) => join(runs, name));
}

async function folderBytes(dir: string): Promise<number> {
	let total = 0;
	for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
	return total;
}

describe("a job's log", () => {
	test("a job printing 200 MB leaves a log of its head, a marker and its tail; output_path names it", async () => {
		const r = await repo("[jobs]\ntest = \"echo the-first-line; head -c 209715200 /dev/zero | tr '\\\\0' y; echo; echo the-last-line; exit 3\"\n");
		const result: AnyResult = await done(r.ctx(), {});
		expectValidEnvelope("done", result);
		const printed = "the-first-line\n".length + 200 * MB + "\nthe-last-line\n".length;
		const path = result.diagnostics?.[0]?.output_path ?? "";
		expect(result.steps?.[0]?.output_path).toBe(path);
		expect((await stat(path)).size).toBeLessThanOrEqual(LOG_LIMIT_BYTES + 1024);
		const log = await readFile(path, "utf8");
		expect(log.startsWith("the-first-line\nyyyy")).toBe(true);
		expect(log.endsWith("yyyy\nthe-last-line\n")).toBe(true);
		const [, omitted, head, tail, total] = (MARKER.exec(log) ?? []).map(Number);
		expect(total).toBe(printed);
		expect((head ?? 0) + (tail ?? 0) + (omitted ?? 0)).toBe(printed);
		expect(head).toBeLessThanOrEqual(LOG_HEAD_BYTES);
		expect(tail).toBeLessThanOrEqual(LOG_TAIL_BYTES);
		// The excerpt says how much the job printed, not how much of the cut log it skipped.
		expect(result.diagnostics?.[0]?.output).toContain(`the job printed ${printed} bytes`);
		expect(result.diagnostics?.[0]?.output).toEndWith("the-last-line\n");
	}, 60_000);

	test("a log at the limit is kept whole, byte for byte", async () => {
		const r = await repo(`[jobs]\ntest = "head -c ${LOG_LIMIT_BYTES} /dev/zero | tr '\\\\0' z; exit 1"\n`);
		const result = await done(r.ctx(), {});
		const log = await readFile(result.diagnostics?.[0]?.output_path ?? "", "latin1");
		expect(log).toBe("z".repeat(LOG_LIMIT_BYTES));
		expect(result.diagnostics?.[0]?.output).toContain("the whole output is in the log file");
	});

	test("while the job runs, the disk holds its head and tail, not all it printed", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		const logDir = join(r.root, ".git", "live-logs");
		const release = join(r.root, ".git", "release");
		// 300 MB, then the job waits (still running) until the test has looked at its log.
		const job: PlannedJob = {
			label: "noisy",
			stage: "test",
			kind: "job",
			exitDecides: true,
			commands: [`head -c 314572800 /dev/zero | tr '\\0' x; echo; echo end; while [ ! -e '${release}' ]; do sleep 0.05; done`],
			timeout: 60,
		};
		const plan: GatePlan = { verb: "test", phases: [[job]], skipped: [], failFast: true };
		const running = runPlan(plan, { root: r.root, env: { PATH: process.env.PATH ?? "", DISCERN_ROOT: r.root }, logDir, signal: new AbortController().signal });
		const logPath = join(logDir, "01-noisy.log");
		let seen = { size: 0, blocks: 0 };
		for (let waited = 0; seen.size < 314572800 + 5 && waited < 30_000; waited += 50) {
			await Bun.sleep(50);
			const info = await stat(logPath).catch(() => null);
			if (info) seen = { size: info.size, blocks: info.blocks };
		}
		expect(seen.size).toBe(314572800 + "\nend\n".length);
		// The watcher looks every 250 ms: within a few looks (more on a loaded machine) the middle is freed.
		let onDisk = Number.POSITIVE_INFINITY;
		for (let waited = 0; onDisk > LOG_LIMIT_BYTES + 16 * MB && waited < 10_000; waited += 100) {
			await Bun.sleep(100);
			onDisk = (await stat(logPath)).blocks * 512;
		}
		await Bun.write(release, "");
		const report = await running;
		expect(report.runs[0]?.outcome).toBe("ok");
		expect(onDisk).toBeLessThanOrEqual(LOG_LIMIT_BYTES + 16 * MB);
		const log = await readFile(logPath, "latin1");
		expect(log.length).toBeLessThanOrEqual(LOG_LIMIT_BYTES + 1024);
		expect(log.endsWith("xxx\nend\n")).toBe(true);
		// The punched middle never reached the kept head and tail: no zero bytes in what was kept.
		expect(log.includes("\0")).toBe(false);
	}, 60_000);

	test("a job whose name is longer than a file name can be still gets its own log", async () => {
		const long = "a".repeat(300);
		// No fail-fast: whichever fails first must not cancel the other before it prints.
		const r = await repo(
			`[gate]\nfail_fast = false\n[jobs.${long}]\nstage = "test"\nrun = "echo first; exit 1"\n[jobs.${long}b]\nstage = "test"\nrun = "echo second; exit 1"\n`,
		);
		const result = await testVerb(r.ctx(), {});
		expectValidEnvelope("test", result);
		expect(result.ok).toBe(false);
		const logs = (result.steps ?? []).map((step) => step.output_path ?? "");
		expect(new Set(logs).size).toBe(2);
		expect((await Promise.all(logs.map((path) => readFile(path, "utf8")))).sort()).toEqual(["first\n", "second\n"]);
	});
});

describe("the runs folder", () => {
	test("keeps at most five runs", async () => {
		const r = await repo('[jobs]\ntest = "echo small"\n');
		for (let i = 0; i < 7; i++) expect((await testVerb(r.ctx(), {})).ok).toBe(true);
		expect((await runFolders(r)).length).toBe(5);
	});

	test("keeps its total under the budget: older runs make room for the newest", async () => {
		// Six jobs × a capped 4 MB log ≈ 24 MB a run: the budget holds two such runs, not five.
		const jobs = Array.from({ length: 6 }, (_, i) => `[jobs.noisy${i}]\nstage = "test"\nrun = "head -c 10485760 /dev/zero | tr '\\\\0' n"\n`).join("");
		const r = await repo(jobs);
		const newest: string[] = [];
		for (let i = 0; i < 4; i++) {
			expect((await testVerb(r.ctx(), {})).ok).toBe(true);
			newest.push((await runFolders(r)).at(-1) ?? "");
		}
		const folders = await runFolders(r);
		const sizes = await Promise.all(folders.map(folderBytes));
		expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(RUNS_BUDGET_BYTES);
		// The newest runs are the ones kept, the latest among them.
		expect(folders).toEqual(newest.slice(-folders.length));
		expect(folders.length).toBe(2);
	}, 60_000);
});

describe("pruning while a run is under way", () => {
	test("weighs only older runs: a log still being written (its size mid-write) pushes none of them out; the run's end weighs it", async () => {
		// Where runs always are, `<git dir>/discern/runs`: pruning checks each folder from the git dir down.
		const gitDir = await mkdtemp(join(tmpdir(), "discern-runs-"));
		const runs = join(gitDir, "discern", "runs");
		await mkdir(runs, { recursive: true });
		try {
			// Sparse files: their apparent size is what a run folder weighs, without writing it.
			const run = async (name: string, megabytes: number) => {
				await mkdir(join(runs, name));
				await writeFile(join(runs, name, "01-test.log"), "");
				await truncate(join(runs, name, "01-test.log"), megabytes * 1024 * 1024);
				return join(runs, name);
			};
			await run("2026-01-01T00-00-01-000Z-done-1", 20);
			await run("2026-01-01T00-00-02-000Z-done-1", 20);
			const current = await run("2026-01-01T00-00-03-000Z-done-1", 60);
			await pruneRuns(current, { weighCurrent: false });
			expect((await readdir(runs)).length).toBe(3);
			await pruneRuns(current);
			expect(await readdir(runs)).toEqual(["2026-01-01T00-00-03-000Z-done-1"]);
		} finally {
			await rm(gitDir, { recursive: true, force: true });
		}
	});
});
