import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { killLeftovers, writeRunningJobs } from "../../src/jobs/leftovers.ts";
import { TOKEN_KEY } from "../../src/jobs/runner.ts";
import { sealer } from "../../src/proof/seal.ts";
import { REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { processesWithCommandLine, processesWithEnv, survivors, survivorsByCommandLine, TAG } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * discern SIGKILLed mid-run cannot stop its jobs; the next gate in that
 * checkout finds what they left running, kills it, and says so.
 */
const made: TestRepo[] = [];
const started: ReturnType<typeof Bun.spawn>[] = [];
afterEach(async () => {
	for (const child of started.splice(0)) child.kill("SIGKILL");
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});

const LEDGER = ".git/discern/running-jobs.json";

/** One job per way of hiding, each with its own `sleep` to find it by. */
const HIDING = `[jobs.plain]
stage = "check"
run = "sleep 1234.${TAG}951 & sleep 60"
[jobs.cleared]
stage = "check"
run = "env -i sleep 1234.${TAG}952 & sleep 60"
[jobs.grouped]
stage = "check"
run = "perl -e 'setpgrp(0, 0); exec @ARGV' env -i sleep 1234.${TAG}953 & sleep 60"
[jobs.daemon]
stage = "check"
run = "(setsid sleep 1234.${TAG}954 >/dev/null 2>&1 &); sleep 60"
[jobs.test]
stage = "test"
run = "true"
`;
const MARKERS = [`sleep 1234.${TAG}951`, `sleep 1234.${TAG}952`, `sleep 1234.${TAG}953`, `sleep 1234.${TAG}954`];

describe("after discern was SIGKILLed mid-run", () => {
	test("the next gate kills what its jobs left running and says so; a normal run leaves no record", async () => {
		const r = await makeRepo({ config: HIDING });
		made.push(r);
		const gate = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), "done", "--json"], {
			cwd: r.root,
			stdin: "ignore",
			stdout: "ignore",
			stderr: "ignore",
		});
		const deadline = Date.now() + 15_000;
		// Every marker running, and every job's leader written down (the ledger is written a moment after each job is spawned;
		// the jobs, `test` too, start together, so the last write names them all).
		const jobs = HIDING.match(/^\[jobs\./gm)?.length ?? 0;
		const ledgerLeaders = async () =>
			(
				(await Bun.file(join(r.root, LEDGER))
					.json()
					.catch(() => null)) as { leaders?: unknown[] } | null
			)?.leaders?.length ?? 0;
		const running = async () => (await Promise.all(MARKERS.map(processesWithCommandLine))).every((pids) => pids.length > 0) && (await ledgerLeaders()) === jobs;
		while (!(await running()) && Date.now() < deadline) await Bun.sleep(50);
		expect(existsSync(join(r.root, LEDGER))).toBe(true);
		gate.kill("SIGKILL");
		await gate.exited;
		await Bun.sleep(200);
		// The attack worked: everything the jobs started outlived discern.
		for (const marker of MARKERS) expect({ marker, alive: (await processesWithCommandLine(marker)).length > 0 }).toEqual({ marker, alive: true });

		const next = await runDiscern(["test", "--json"], { cwd: r.root });
		expect(next.exitCode).toBe(0);
		const envelope = JSON.parse(next.stdout) as { ok: boolean; hints: string[] };
		expect(envelope.ok).toBe(true);
		const notice = envelope.hints.find((hint) => hint.includes("was killed before it could stop its jobs"));
		expect(notice).toBeDefined();
		expect(notice).toContain(`discern pid ${gate.pid}`);
		for (const marker of MARKERS) expect(await survivorsByCommandLine(marker)).toEqual([]);
		expect(await processesWithEnv("DISCERN_ROOT", r.root)).toEqual([]);
		expect(existsSync(join(r.root, LEDGER))).toBe(false);

		// Nothing left to say the next time; and a run that ends normally removes its record.
		const again = await runDiscern(["test", "--json"], { cwd: r.root });
		expect((JSON.parse(again.stdout) as { hints: string[] }).hints.some((hint) => hint.includes("was killed before"))).toBe(false);
		expect(existsSync(join(r.root, LEDGER))).toBe(false);
	});
});

describe("telling a dead run's processes from the machine's others", () => {
	type Record = Parameters<typeof writeRunningJobs>[1];
	/** A record as discern writes it: sealed with the repository's key. */
	async function ledgerFor(r: TestRepo, record: Record): Promise<void> {
		const gitDir = join(r.root, ".git");
		await writeRunningJobs(gitDir, record, await sealer(gitDir));
	}

	/** A `setsid sleep`; `token`: it carries a job token, as a job's leader does. */
	async function bystander(marker: string, token?: string): Promise<{ pid: number; start: number }> {
		// Its own session, as a job leader's would be: the session is what a record would match.
		const child = Bun.spawn(["setsid", "sleep", marker], {
			stdin: "ignore",
			stdout: "ignore",
			stderr: "ignore",
			env: { ...process.env, ...(token ? { [TOKEN_KEY]: token } : {}) },
		});
		started.push(child);
		const deadline = Date.now() + 5000;
		while ((await processesWithCommandLine(`sleep ${marker}`)).length === 0 && Date.now() < deadline) await Bun.sleep(20);
		const stat = await Bun.file(`/proc/${child.pid}/stat`).text();
		return { pid: child.pid, start: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]) };
	}

	const deadOwner = { pid: 2 ** 22 + 7, start: 1 };

	test("a recorded leader whose pid now belongs to another process: its session is left alone", async () => {
		const r = await makeRepo({});
		made.push(r);
		const other = await bystander(`1234.${TAG}961`);
		await ledgerFor(r, { version: 1, owner: deadOwner, token_prefix: "gone", leaders: [{ pid: other.pid, start: other.start - 1 }] });
		expect(await killLeftovers(join(r.root, ".git"))).toEqual([]);
		expect(await processesWithCommandLine(`sleep 1234.${TAG}961`)).toEqual([other.pid]);
		expect(existsSync(join(r.root, LEDGER))).toBe(false);
	});

	test("the same leader, still itself: its session is killed", async () => {
		const r = await makeRepo({});
		made.push(r);
		const leader = await bystander(`1234.${TAG}962`, "gone-1");
		await ledgerFor(r, { version: 1, owner: deadOwner, token_prefix: "gone", leaders: [leader] });
		const notices = await killLeftovers(join(r.root, ".git"));
		expect(notices).toHaveLength(1);
		expect(notices[0]).toContain(`sleep 1234.${TAG}962`);
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}962`)).toEqual([]);
	});

	test("a record whose discern still runs is not touched", async () => {
		const r = await makeRepo({});
		made.push(r);
		const leader = await bystander(`1234.${TAG}963`);
		const owner = await bystander(`1234.${TAG}964`);
		await ledgerFor(r, { version: 1, owner, token_prefix: "live", leaders: [leader] });
		expect(await killLeftovers(join(r.root, ".git"))).toEqual([]);
		expect(await processesWithCommandLine(`sleep 1234.${TAG}963`)).toEqual([leader.pid]);
		expect(existsSync(join(r.root, LEDGER))).toBe(true);
	});

	test("a sealed record naming a session where nothing carries its token kills nothing there (a person's setsid sleep)", async () => {
		const r = await makeRepo({});
		made.push(r);
		const person = await bystander(`1234.${TAG}965`);
		await ledgerFor(r, { version: 1, owner: deadOwner, token_prefix: "gone", leaders: [person] });
		expect(await killLeftovers(join(r.root, ".git"))).toEqual([]);
		expect(await processesWithCommandLine(`sleep 1234.${TAG}965`)).toEqual([person.pid]);
		expect(existsSync(join(r.root, LEDGER))).toBe(false);
	});

	test("a record written by hand (no seal) makes `discern test` kill nothing: a person's setsid sleep survives", async () => {
		const r = await makeRepo({ config: `[jobs.test]\nstage = "test"\nrun = "true"\n` });
		made.push(r);
		// Even carrying a token the forged record names: without the seal the record is no record.
		const person = await bystander(`1234.${TAG}966`, "x-1");
		await mkdir(join(r.root, ".git/discern"), { recursive: true });
		await writeFile(join(r.root, LEDGER), JSON.stringify({ version: 1, owner: { pid: 999999, start: 1 }, token_prefix: "x", leaders: [person] }));
		const run = await runDiscern(["test", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(0);
		expect((JSON.parse(run.stdout) as { hints: string[] }).hints.some((hint) => hint.includes("was killed before"))).toBe(false);
		expect(await processesWithCommandLine(`sleep 1234.${TAG}966`)).toEqual([person.pid]);
		expect(existsSync(join(r.root, LEDGER))).toBe(false);
	});

	test("a damaged record is dropped without killing anything", async () => {
		const r = await makeRepo({});
		made.push(r);
		await mkdir(join(r.root, ".git/discern"), { recursive: true });
		await writeFile(join(r.root, LEDGER), "{not json");
		expect(await killLeftovers(join(r.root, ".git"))).toEqual([]);
		expect(existsSync(join(r.root, LEDGER))).toBe(false);
	});
});
