import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * A result larger than a pipe's buffer (64 KiB) reaches a slow reader as
 * exactly one JSON document: a partial write resumes, it never restarts.
 */
const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});

describe("a result bigger than a pipe's buffer", () => {
	test("`config get jobs --json | (sleep; cat)` is one whole JSON document", async () => {
		const jobs = Array.from({ length: 1500 }, (_, n) => `job${n} = { stage = "test", run = "echo ${"x".repeat(60)} ${n}" }`).join("\n");
		const r = await makeRepo({ config: `[jobs]\n${jobs}\n` });
		made.push(r);
		const main = join(REPO_ROOT, "src/main.ts");
		// The reader starts late, so the pipe fills and discern's writes come back short.
		const child = Bun.spawn(["sh", "-c", `"$0" "$1" config get jobs --json | (sleep 0.3; cat)`, process.execPath, main], {
			cwd: r.root,
			env: { ...process.env, NO_COLOR: "1" },
			stdout: "pipe",
			stderr: "pipe",
		});
		const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
		expect(stdout.length).toBeGreaterThan(65_536);
		const parsed = JSON.parse(stdout) as { ok: boolean; data: { value: Record<string, unknown> } };
		expect(parsed.ok).toBe(true);
		expect(Object.keys(parsed.data.value)).toHaveLength(1500);
		expect(stderr).toBe("");
	});
});
