import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GatePlan } from "../../src/jobs/plan.ts";
import { runPlan } from "../../src/jobs/runner.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { gatePlan, plannedJob } from "../helpers/plan.ts";
import { processesWithCommandLine, survivors, survivorsByCommandLine, TAG, zombieChildren } from "../helpers/processes.ts";

/**
 * No process a job starts outlives it, however it hides: a cleared
 * environment, its own session, a dead parent, an ignored TERM. Survivors
 * are looked for by DISCERN_ROOT and, for those that cleared their
 * environment, by a command line no other test uses (`sleep 1234.<TAG>51`).
 */
let root: string;
beforeAll(async () => {
	root = await mkdtemp(join(tmpdir(), "discern-trees-"));
});
afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

const job = plannedJob;

const plan = gatePlan;

async function run(p: GatePlan, options: { subreaper?: boolean; graceMs?: number } = {}) {
	return runPlan(p, {
		root,
		env: { PATH: process.env.PATH ?? "", DISCERN_ROOT: root },
		logDir: await mkdtemp(join(root, "logs-")),
		signal: new AbortController().signal,
		graceMs: options.graceMs ?? 300,
		...(options.subreaper === undefined ? {} : { subreaper: options.subreaper }),
	});
}

const outcomes = (report: Awaited<ReturnType<typeof run>>) => Object.fromEntries(report.runs.map((r) => [r.job.label, r.outcome]));

/** The ways a job's process can leave its tree; each names its own `sleep` so that a survivor is found without its environment. */
const ESCAPES = [
	["an orphan that started its own session and cleared its environment", `(setsid env -i sleep 1234.${TAG}51 &)`],
	["the same, left behind by the job's own shell", `setsid env -i sleep 1234.${TAG}52 &`],
	["a double fork under nohup that ignores TERM and HUP", `(setsid env -i nohup sh -c 'trap "" TERM HUP; sleep 1234.${TAG}53' >/dev/null 2>&1 &)`],
	[
		"a grandchild in a process group of its own whose parent the job kills",
		`sh -c 'perl -e "setpgrp(0, 0); exec @ARGV" env -i sleep 1234.${TAG}54 & sleep 60' & sleep 0.1; kill -9 $!`,
	],
] as const;

describe("discern as a child subreaper (Linux)", () => {
	for (const [name, command] of ESCAPES) {
		test(`${name}: killed when its green job ends`, async () => {
			const fragment = /sleep (1234\.\d+)/.exec(command)?.[0] ?? "";
			const report = await run(plan([[job("leaky", [`${command}\nsleep 0.2`])]]));
			expect(report.runs[0]?.outcome).toBe("ok");
			expect(await survivorsByCommandLine(fragment)).toEqual([]);
			expect(await survivors(root)).toEqual([]);
		});
	}

	test("a process that keeps forking, exiting and starting a new session is caught (ten runs)", async () => {
		// Each generation forks, the parent exits at once, the child calls setsid: between two reads of discern's
		// children list the current one may be a zombie whose child is not re-parented yet.
		const marker = `hop${TAG}56`;
		const hopper = `import os, time\nwhile True:\n    if os.fork():\n        os._exit(0)\n    os.setsid()\n    time.sleep(0.001)\n`;
		const script = join(root, `${marker}.py`);
		await writeFile(script, hopper);
		for (let attempt = 0; attempt < 10; attempt++) {
			const report = await run(plan([[job("hopper", [`python3 ${script} ${marker} & sleep 0.3`])]]));
			expect(report.runs[0]?.outcome).toBe("ok");
			const left = await survivorsByCommandLine(marker, 500);
			for (const pid of left) process.kill(pid, "SIGKILL");
			expect({ attempt, left }).toEqual({ attempt, left: [] });
		}
	}, 60_000);

	test("a timed-out job's orphan that cleared its environment is killed with it", async () => {
		const report = await run(plan([[job("hang", [`(setsid env -i sh -c 'trap "" TERM; sleep 1234.${TAG}55' &); trap '' TERM; sleep 60`], { timeout: 1 })]]));
		expect(report.runs[0]?.timedOut).toBe(true);
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}55`)).toEqual([]);
		expect(await survivors(root)).toEqual([]);
	});

	test("adopted orphans are reaped: no zombie children are left behind", async () => {
		await run(plan([[job("orphans", [`for i in 1 2 3 4 5; do (setsid env -i sleep 1234.${TAG}56 &); done; sleep 0.2`])]]));
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}56`)).toEqual([]);
		expect(await zombieChildren()).toEqual([]);
	});

	test("the sweep spares discern's own children (its git calls), which never left its session", async () => {
		const own = Bun.spawn(["sleep", `1234.${TAG}57`], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
		try {
			await run(plan([[job("leaky", [`(setsid env -i sleep 1234.${TAG}58 &); sleep 0.2`])]]));
			expect(await survivorsByCommandLine(`sleep 1234.${TAG}58`)).toEqual([]);
			expect(await processesWithCommandLine(`sleep 1234.${TAG}57`)).toEqual([own.pid]);
		} finally {
			own.kill("SIGKILL");
			await own.exited;
		}
	});

	test("a run ending while another runs (an MCP server) leaves that run's daemon alone, and the last sweep takes both", async () => {
		const pidFile = join(root, "daemon.pid");
		// B's job checks at its end that its own daemon was not killed under it.
		const longer = run(plan([[job("b", [`(setsid env -i sleep 1234.${TAG}59 & echo $! > ${pidFile}); sleep 1.5; kill -0 "$(cat ${pidFile})"`])]]));
		await Bun.sleep(300);
		const shorter = await run(plan([[job("a", [`(setsid env -i sleep 1234.${TAG}60 &); sleep 0.1`])]]));
		expect(outcomes(shorter)).toEqual({ a: "ok" });
		expect(outcomes(await longer)).toEqual({ b: "ok" });
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}59`)).toEqual([]);
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}60`)).toEqual([]);
	});

	test("after the run discern adopts nothing: an unrelated orphan goes to init as before", async () => {
		await run(plan([[job("quick", ["true"])]]));
		const orphaning = Bun.spawn(["sh", "-c", `(sleep 1234.${TAG}61 &)`], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
		await orphaning.exited;
		const [pid] = await processesWithCommandLine(`sleep 1234.${TAG}61`);
		try {
			expect(pid).toBeDefined();
			const stat = await readFile(`/proc/${pid}/stat`, "utf8");
			const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
			expect(parent).not.toBe(process.pid);
		} finally {
			if (pid !== undefined) process.kill(pid, "SIGKILL");
		}
	});

	test("discern exiting mid-run (the hard exit after a signal, a crash) kills its jobs on the way out", async () => {
		const script = join(root, "exit-mid-run.ts");
		await writeFile(
			script,
			`import { runPlan } from ${JSON.stringify(join(REPO_ROOT, "src/jobs/runner.ts"))};
setTimeout(() => process.exit(3), 700);
await runPlan(
	{ verb: "done", failFast: true, skipped: [], phases: [[{ label: "long", stage: "check", kind: "job", exitDecides: true, timeout: 0,
		commands: ["sleep 1234.${TAG}62 & (setsid env -i sh -c 'trap \\"\\" TERM; sleep 1234.${TAG}63' &); trap '' TERM; sleep 60"] }]] },
	{ root: ${JSON.stringify(root)}, env: { PATH: process.env.PATH ?? "", DISCERN_ROOT: ${JSON.stringify(root)} }, logDir: ${JSON.stringify(join(root, "exit-logs"))}, signal: new AbortController().signal },
);
`,
		);
		const child = Bun.spawn([process.execPath, script], { stdin: "ignore", stdout: "ignore", stderr: "inherit" });
		expect(await child.exited).toBe(3);
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}62`)).toEqual([]);
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}63`)).toEqual([]);
		expect(await survivors(root)).toEqual([]);
	});
});

describe("the fallback without a subreaper (/proc scan by token)", () => {
	test("a double-forked daemon that kept its environment is killed when its job ends", async () => {
		const report = await run(plan([[job("daemon", [`(setsid sh -c 'trap "" TERM; sleep 1234.${TAG}64' >/dev/null 2>&1 &); sleep 0.2`])]]), {
			subreaper: false,
		});
		expect(report.runs[0]?.outcome).toBe("ok");
		expect(await survivors(root)).toEqual([]);
	});

	test("a timeout kills the tree, including a setsid child that ignores TERM", async () => {
		const report = await run(plan([[job("hang", [`setsid sh -c 'trap "" TERM; sleep 1234.${TAG}65' & trap '' TERM; sleep 60`], { timeout: 1 })]]), {
			subreaper: false,
		});
		expect(report.runs[0]?.timedOut).toBe(true);
		expect(await survivors(root)).toEqual([]);
	});
});

describe("fail-fast against timeouts", () => {
	test("a job cancelled by fail-fast whose timeout fires during the kill grace is cancelled, not timed out", async () => {
		const report = await run(plan([[job("stubborn", ["trap '' TERM; sleep 60"], { timeout: 1 }), job("bad", ["sleep 0.5; exit 1"])]]), { graceMs: 1500 });
		expect(outcomes(report)).toEqual({ stubborn: "cancelled", bad: "failed" });
		expect(report.runs[0]?.timedOut).toBe(false);
		expect(report.failed?.job.label).toBe("bad");
		expect(await survivors(root)).toEqual([]);
	});

	test("a job that timed out before fail-fast reached it stays timed out", async () => {
		const report = await run(plan([[job("slow", ["trap '' TERM; sleep 60"], { timeout: 1 }), job("bad", ["sleep 1.3; exit 1"])]], true), { graceMs: 1000 });
		expect(report.runs[0]?.outcome).toBe("failed");
		expect(report.runs[0]?.timedOut).toBe(true);
		expect(await survivors(root)).toEqual([]);
	});
});
