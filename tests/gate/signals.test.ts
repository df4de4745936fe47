import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { processesWithEnv, survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** SIGINT/SIGTERM to discern kill every job tree first, then discern exits 130/143. */
const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});

async function interruptDone(signal: "SIGINT" | "SIGTERM"): Promise<{ exitCode: number; stdout: string; root: string }> {
	// Two jobs: one that ignores TERM, one with a grandchild.
	const r = await makeRepo({ config: `[jobs]\nlint = "trap '' TERM; sleep 60"\ntest = "sh -c 'sleep 60' & sleep 60"\n` });
	made.push(r);
	const child = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), "done", "--json"], { cwd: r.root, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const deadline = Date.now() + 10_000;
	while ((await processesWithEnv("DISCERN_ROOT", r.root)).length < 3 && Date.now() < deadline) await Bun.sleep(50);
	child.kill(signal);
	const [exitCode, stdout] = await Promise.all([child.exited, new Response(child.stdout).text()]);
	return { exitCode, stdout, root: r.root };
}

describe("interrupting the gate", () => {
	test("SIGINT: every job tree is killed, exit 130, the envelope says interrupted", async () => {
		const { exitCode, stdout } = await interruptDone("SIGINT");
		expect(exitCode).toBe(130);
		const envelope = JSON.parse(stdout) as { ok: boolean; data: { interrupted: boolean } };
		expect(envelope.ok).toBe(false);
		expect(envelope.data.interrupted).toBe(true);
	});

	test("SIGTERM: exit 143", async () => {
		const { exitCode } = await interruptDone("SIGTERM");
		expect(exitCode).toBe(143);
	});
});
