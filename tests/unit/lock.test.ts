import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { acquireLock } from "../../src/platform/lock.ts";
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
