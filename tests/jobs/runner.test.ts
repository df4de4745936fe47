import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOG_LIMIT_BYTES } from "../../src/jobs/log-cap.ts";
import type { GatePlan, PlannedJob } from "../../src/jobs/plan.ts";
import { type RunEvent, runPlan } from "../../src/jobs/runner.ts";
import { gatePlan, plannedJob } from "../helpers/plan.ts";
import { processesWithEnv, survivors } from "../helpers/processes.ts";

/**
 * The runner against real shells: exit codes, list-valued jobs, fail-fast,
 * timeouts, TERM-ignoring trees, interrupts, huge output. After every test
 * no process that carries the fixture's DISCERN_ROOT may be alive.
 */
let root: string;
beforeAll(async () => {
	root = await mkdtemp(join(tmpdir(), "discern-runner-"));
});
afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

const job = plannedJob;

const plan = gatePlan;

async function run(p: GatePlan, options: { signal?: AbortSignal; graceMs?: number; events?: RunEvent[] } = {}) {
	const logDir = await mkdtemp(join(root, "logs-"));
	const report = await runPlan(p, {
		root,
		env: { PATH: process.env.PATH ?? "", DISCERN_ROOT: root },
		logDir,
		signal: options.signal ?? new AbortController().signal,
		graceMs: options.graceMs ?? 300,
		onEvent: (event) => options.events?.push(event),
	});
	expect(await survivors(root)).toEqual([]);
	return report;
}

const outcomes = (report: Awaited<ReturnType<typeof run>>) => Object.fromEntries(report.runs.map((r) => [r.job.label, r.outcome]));

describe("the survivor check", () => {
	test("sees a process that carries the fixture's DISCERN_ROOT (so a clean result means something)", async () => {
		const child = Bun.spawn(["sleep", "5"], { env: { ...process.env, DISCERN_ROOT: root }, stdin: "ignore", stdout: "ignore" });
		try {
			expect(await processesWithEnv("DISCERN_ROOT", root)).toContain(child.pid);
		} finally {
			child.kill("SIGKILL");
			await child.exited;
		}
	});
});

describe("runPlan", () => {
	test("green jobs: outcome ok, exit 0, output in the log, DISCERN_ROOT set, stdin closed", async () => {
		const report = await run(plan([[job("hello", ['echo "root=$DISCERN_ROOT"; cat; echo done-reading'])]]));
		expect(report.failed).toBeNull();
		const only = report.runs[0];
		expect(only?.outcome).toBe("ok");
		expect(only?.exitCode).toBe(0);
		const log = await readFile(only?.logPath ?? "", "utf8");
		expect(log).toContain(`root=${root}`);
		expect(log).toContain("done-reading");
	});

	test("a command's `cd dir` is the checkout's folder whatever CDPATH, ENV or BASH_ENV the caller exported", async () => {
		// A decoy `api` folder elsewhere, listed in CDPATH: sh would go there, and the job judge files the gate never read.
		const decoy = await mkdtemp(join(root, "decoy-"));
		await mkdir(join(decoy, "api"));
		await mkdir(join(root, "api"), { recursive: true });
		await writeFile(join(root, "api", "real"), "");
		await writeFile(join(decoy, "startup.sh"), "echo read-the-startup-file\n");
		const logDir = await mkdtemp(join(root, "logs-"));
		const report = await runPlan(plan([[job("api", ["cd api && test -f real && echo in-the-checkout; echo env=$CDPATH$ENV$BASH_ENV"])]]), {
			root,
			env: { PATH: process.env.PATH ?? "", DISCERN_ROOT: root, CDPATH: decoy, ENV: join(decoy, "startup.sh"), BASH_ENV: join(decoy, "startup.sh") },
			logDir,
			signal: new AbortController().signal,
			graceMs: 300,
		});
		const log = await readFile(report.runs[0]?.logPath ?? "", "utf8");
		expect(report.failed).toBeNull();
		expect(log).toContain("in-the-checkout");
		expect(log).toContain("env=\n");
		expect(log).not.toContain("read-the-startup-file");
	});

	test("a failing job reports its exit code and the command; later phases are skipped", async () => {
		const report = await run(plan([[job("lint", ["exit 3"])], [job("test", ["true"], { stage: "test" })]]));
		expect(report.failed?.job.label).toBe("lint");
		expect(report.failed?.exitCode).toBe(3);
		expect(report.failed?.failedCommand).toBe("exit 3");
		expect(outcomes(report)).toEqual({ lint: "failed", test: "skipped" });
	});

	test("a list-valued job runs in order and stops at its first failure", async () => {
		const report = await run(plan([[job("e2e", ["echo one", "exit 4", "echo never"])]]));
		const log = await readFile(report.runs[0]?.logPath ?? "", "utf8");
		expect(log).toContain("$ echo one\none\n$ exit 4\n");
		expect(log).not.toContain("never");
		expect(report.failed?.failedCommand).toBe("exit 4");
	});

	test("fail-fast cancels a running sibling's whole tree", async () => {
		const started = performance.now();
		const report = await run(plan([[job("slow", ["sleep 30 & sleep 30; wait"]), job("bad", ["sleep 0.2; exit 1"])]]));
		expect(outcomes(report)).toEqual({ slow: "cancelled", bad: "failed" });
		expect(performance.now() - started).toBeLessThan(10_000);
	});

	test("fail-fast also stops a list-valued sibling between its commands", async () => {
		const report = await run(plan([[job("steps", ["sleep 0.3", "touch never-ran"]), job("bad", ["sleep 0.1; exit 1"])]]));
		expect(outcomes(report)).toEqual({ steps: "cancelled", bad: "failed" });
		expect(await Bun.file(join(root, "never-ran")).exists()).toBe(false);
	});

	test("without fail-fast, siblings finish", async () => {
		const report = await run(plan([[job("slowish", ["sleep 0.5; echo finished"]), job("bad", ["exit 1"])]], false));
		expect(outcomes(report)).toEqual({ slowish: "ok", bad: "failed" });
	});

	test("a timeout kills the whole tree, including a grandchild that ignores TERM", async () => {
		const stubborn = "sh -c 'trap \"\" TERM; while true; do sleep 0.1; done' & trap '' TERM; sleep 60";
		const report = await run(plan([[job("hang", [stubborn], { timeout: 1 })]]), { graceMs: 300 });
		const hang = report.runs[0];
		expect(hang?.outcome).toBe("failed");
		expect(hang?.timedOut).toBe(true);
		expect(await readFile(hang?.logPath ?? "", "utf8")).toContain("timed out after 1 s");
	});

	test("a process that leaves its group (setsid) is still killed on timeout", async () => {
		const report = await run(plan([[job("escape", ["setsid sh -c 'sleep 60' & sleep 60"], { timeout: 1 })]]));
		expect(report.runs[0]?.timedOut).toBe(true);
	});

	test("a daemon that double-forks and leaves the group does not outlive its job", async () => {
		const report = await run(plan([[job("daemon", ["(setsid sh -c 'sleep 60' >/dev/null 2>&1 &); (setsid sleep 61 >/dev/null 2>&1 &); sleep 0.2"])]]));
		expect(report.runs[0]?.outcome).toBe("ok");
	});

	test("a timed-out job's detached daemon is killed too", async () => {
		const report = await run(plan([[job("daemon", ["(setsid sh -c 'trap \"\" TERM; sleep 60' >/dev/null 2>&1 &); sleep 60"], { timeout: 1 })]]));
		expect(report.runs[0]?.timedOut).toBe(true);
	});

	test("a sibling cancelled by fail-fast is cancelled even if it exits 0 on TERM", async () => {
		const report = await run(plan([[job("polite", ["trap 'exit 0' TERM; sleep 5 & wait"]), job("bad", ["sleep 0.2; exit 3"])]]));
		expect(outcomes(report)).toEqual({ polite: "cancelled", bad: "failed" });
	});

	test("each job has its own log, even when labels would collide after escaping", async () => {
		const report = await run(plan([[job("standard:cov", ["echo from-standard"]), job("standard_cov", ["echo from-job"])]]));
		const logs = report.runs.map((r) => r.logPath ?? "");
		expect(new Set(logs).size).toBe(2);
		expect(await readFile(logs[0] ?? "", "utf8")).toBe("from-standard\n");
		expect(await readFile(logs[1] ?? "", "utf8")).toBe("from-job\n");
	});

	test("background processes left by a green job do not outlive it", async () => {
		const report = await run(plan([[job("leaky", ["sleep 60 & echo left-behind"])]]));
		expect(report.runs[0]?.outcome).toBe("ok");
	});

	test("an interrupt (abort) cancels everything and marks later phases skipped", async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort("SIGINT"), 300);
		const report = await run(plan([[job("long", ["trap '' TERM; sleep 60"])], [job("after", ["true"])]]), { signal: controller.signal });
		expect(report.interrupted).toBe(true);
		expect(outcomes(report)).toEqual({ long: "cancelled", after: "skipped" });
	});

	test("fix jobs in separate phases run one after another; a phase's jobs run together", async () => {
		const events: RunEvent[] = [];
		const together = [job("a", ["sleep 0.3"]), job("b", ["sleep 0.3"])];
		await run(plan([[job("f1", ["true"], { stage: "fix" })], [job("f2", ["true"], { stage: "fix" })], together]), { events });
		const order = events.map((event) => `${event.type}:${event.label}`);
		expect(order.indexOf("finish:f1")).toBeLessThan(order.indexOf("start:f2"));
		expect(order.indexOf("start:b")).toBeLessThan(order.indexOf("finish:a"));
	});

	test("100 MB of output goes to the log, not into memory; the log keeps its head and tail", async () => {
		const report = await run(plan([[job("noisy", ["head -c 104857600 /dev/zero | tr '\\0' 'x'; echo; echo tail-marker"])]]));
		const log = report.runs[0]?.logPath ?? "";
		expect((await stat(log)).size).toBeLessThanOrEqual(LOG_LIMIT_BYTES + 1024);
		expect(await readFile(log, "utf8")).toEndWith("\ntail-marker\n");
		expect(report.runs[0]?.outputBytes).toBe(104857600 + "\ntail-marker\n".length);
		expect(report.runs[0]?.outcome).toBe("ok");
	});

	test("afterPhase can stop the run between phases", async () => {
		const p = plan([[job("fmt", ["true"], { stage: "fix" })], [job("lint", ["true"])]]);
		const logDir = await mkdtemp(join(root, "logs-"));
		const report = await runPlan(p, {
			root,
			env: { PATH: process.env.PATH ?? "", DISCERN_ROOT: root },
			logDir,
			signal: new AbortController().signal,
			afterPhase: async (phase) => (phase[0]?.stage === "fix" ? "drifted" : null),
		});
		expect(report.stoppedBy).toEqual({ reason: "drifted", stage: "fix" });
		expect(outcomes(report)).toEqual({ fmt: "ok", lint: "skipped" });
	});

	test("afterPhase looks while leftovers are swept, and looks again once they are gone when the sweep found any", async () => {
		const looks: string[] = [];
		const options = async () => ({
			root,
			env: { PATH: process.env.PATH ?? "", DISCERN_ROOT: root },
			logDir: await mkdtemp(join(root, "logs-")),
			signal: new AbortController().signal,
			afterPhase: async (phase: readonly PlannedJob[]) => {
				looks.push(phase[0]?.label ?? "");
				return null;
			},
		});
		// No leftover: one look. A daemonized leftover (its own session, so its group is not killed with the job's):
		// it may have edited the tree after the first look, so the check looks a second time.
		await runPlan(plan([[job("clean", ["true"])]]), await options());
		await runPlan(plan([[job("leaves", ["setsid sleep 30 & exit 0"])]]), await options());
		expect(looks).toEqual(["clean", "leaves", "leaves"]);
		expect(await survivors(root)).toEqual([]);
	});
});
