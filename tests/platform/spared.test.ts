import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { runContained } from "../../src/platform/contained.ts";
import { capture } from "../../src/platform/process.ts";

/**
 * accept runs its landing git in a session of its own so that a Ctrl-C
 * cannot stop it halfway. In one discern (an MCP server's parallel calls) a
 * hook's or job's sweep runs beside it: it takes children outside discern's
 * session for leftovers, and must not take that one.
 */
describe("a process started in its own group to finish", () => {
	test("is not killed by a contained run's sweep beside it, subreaper or not", async () => {
		for (const subreaper of [true, false]) {
			const landing = capture(["sh", "-c", "sleep 1; echo finished"], { cwd: tmpdir(), ownGroup: true });
			// Let the shell start before the sweep looks.
			await Bun.sleep(100);
			const hook = await runContained(["sh", "-c", "true"], { cwd: tmpdir(), env: process.env, timeoutS: 10, subreaper });
			expect(hook.exitCode).toBe(0);
			const finished = await landing;
			expect(finished.killedBy).toBeUndefined();
			expect(finished.exitCode).toBe(0);
			expect(finished.stdout).toBe("finished\n");
		}
	});
});
