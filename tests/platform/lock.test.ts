import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { acquireLock, type LockHolder } from "../../src/platform/lock.ts";
import { processStart } from "../../src/platform/process-start.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/repo.ts";

let dir: string;
beforeAll(async () => {
	dir = await makeTempDir("discern-lock-");
});
afterAll(async () => {
	await rm(dir, { recursive: true, force: true });
});

/** Processes racing for one lock: each that wins holds it for a while and reports when. */
async function race(lockPath: string, contenders: number): Promise<{ start: number; end: number }[]> {
	const script = `
		import { acquireLock } from ${JSON.stringify(join(REPO_ROOT, "src/platform/lock.ts"))};
		const outcome = acquireLock(${JSON.stringify(lockPath)}, "race");
		if (outcome.ok) {
			const start = performance.timeOrigin + performance.now();
			await Bun.sleep(150);
			const end = performance.timeOrigin + performance.now();
			outcome.lock.release();
			console.log(JSON.stringify({ start, end }));
		}
	`;
	const children = Array.from({ length: contenders }, () => Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" }));
	const outputs = await Promise.all(children.map((child) => new Response(child.stdout).text()));
	return outputs.filter((output) => output.trim() !== "").map((output) => JSON.parse(output) as { start: number; end: number });
}

function overlapping(intervals: { start: number; end: number }[]): boolean {
	const sorted = [...intervals].sort((a, b) => a.start - b.start);
	return sorted.some((interval, i) => i > 0 && interval.start < (sorted[i - 1]?.end ?? 0));
}

describe("acquireLock", () => {
	test("a second acquisition in the same process is refused while the first holds it", () => {
		const path = join(dir, "plain.lock");
		const first = acquireLock(path, "done");
		expect(first.ok).toBe(true);
		const second = acquireLock(path, "test");
		expect(second.ok).toBe(false);
		expect(second.ok ? null : second.holder?.verb).toBe("done");
		if (first.ok) first.lock.release();
		expect(acquireLock(path, "test").ok).toBe(true);
	});

	test("racing processes never hold the lock at the same time", async () => {
		const holds = await race(join(dir, "race.lock"), 6);
		expect(holds.length).toBeGreaterThanOrEqual(1);
		expect(overlapping(holds)).toBe(false);
	});

	test("racing processes over a stale lock: one takes it over, none overlap", async () => {
		const path = join(dir, "stale.lock");
		await writeFile(path, JSON.stringify({ pid: 2 ** 22 + 11, verb: "done", since: "then", nonce: "old" }));
		const holds = await race(path, 6);
		expect(holds.length).toBeGreaterThanOrEqual(1);
		expect(overlapping(holds)).toBe(false);
	});

	test("release never removes a lock that is no longer ours", async () => {
		const path = join(dir, "mine.lock");
		const mine = acquireLock(path, "done");
		if (!mine.ok) throw new Error("expected the lock");
		const theirs = JSON.stringify({ pid: process.pid, verb: "other", since: "now", nonce: "someone-else" });
		await writeFile(path, theirs);
		mine.lock.release();
		expect(await Bun.file(path).text()).toBe(theirs);
	});
});

describe("a PID that now belongs to another process", () => {
	/** A real holder that dies without releasing (SIGKILL): its lock stays behind with its PID and start time. */
	async function abandonedLock(path: string): Promise<LockHolder> {
		const script = `
			import { acquireLock } from ${JSON.stringify(join(REPO_ROOT, "src/platform/lock.ts"))};
			if (!acquireLock(${JSON.stringify(path)}, "done").ok) process.exit(3);
			console.log("held");
			await Bun.sleep(60_000);
		`;
		const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
		const reader = child.stdout.getReader();
		const first = await reader.read();
		expect(new TextDecoder().decode(first.value)).toContain("held");
		child.kill("SIGKILL");
		await child.exited;
		return JSON.parse(await readFile(path, "utf8")) as LockHolder;
	}

	test("the holder's start time is recorded with its PID", async () => {
		const path = join(dir, "recorded.lock");
		const holder = await abandonedLock(path);
		expect(holder.started).toBeString();
		expect(holder.started).not.toBe(processStart(process.pid) ?? "");
		await rm(path);
	});

	test("a lock whose PID was reused by a live process is taken over; that process is left alone", async () => {
		const path = join(dir, "reused.lock");
		const dead = await abandonedLock(path);
		// The kernel hands the dead holder's PID to someone else: here, a real `sleep` now owns the PID the lock names.
		const other = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
		try {
			await writeFile(path, JSON.stringify({ ...dead, pid: other.pid }));
			const outcome = acquireLock(path, "test");
			expect(outcome.ok).toBe(true);
			expect((JSON.parse(await readFile(path, "utf8")) as LockHolder).pid).toBe(process.pid);
			if (outcome.ok) outcome.lock.release();
			expect(other.exitCode).toBeNull();
		} finally {
			other.kill();
			await other.exited;
		}
	});

	test("the same live PID with its own start time, or a lock written without one, still holds", async () => {
		const path = join(dir, "live.lock");
		const other = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
		try {
			const started = processStart(other.pid);
			expect(started).toBeString();
			await writeFile(path, JSON.stringify({ pid: other.pid, verb: "done", since: "now", nonce: "theirs", started }));
			const refused = acquireLock(path, "test");
			expect(refused.ok ? null : refused.holder?.pid).toBe(other.pid);
			await writeFile(path, JSON.stringify({ pid: other.pid, verb: "done", since: "now", nonce: "theirs" }));
			expect(acquireLock(path, "test").ok).toBe(false);
		} finally {
			other.kill();
			await other.exited;
			await rm(path, { force: true });
		}
	});
});

describe("processStart", () => {
	test("stable for one process, different for another, null for none", async () => {
		const mine = processStart(process.pid);
		expect(mine).toBeString();
		expect(processStart(process.pid)).toBe(mine);
		const other = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
		try {
			expect(processStart(other.pid)).not.toBe(mine);
		} finally {
			other.kill();
			await other.exited;
		}
		expect(processStart(2 ** 22 + 11)).toBeNull();
	});
});
