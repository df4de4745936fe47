import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** The live progress line needs a terminal: `script` gives the CLI a real pseudo-terminal. */
let repo: TestRepo;
beforeAll(async () => {
	repo = await makeRepo({ config: '[jobs]\nlint = "sleep 0.3"\ntypecheck = "sleep 0.1"\n' });
});
afterAll(async () => {
	await repo.remove();
});

async function inTerminal(args: string): Promise<string> {
	const command = `${process.execPath} ${join(REPO_ROOT, "src/main.ts")} ${args}`;
	const child = Bun.spawn(["script", "-qec", command, "/dev/null"], {
		cwd: repo.root,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
		env: { ...process.env, NO_COLOR: "1", CI: "" },
	});
	const [output] = await Promise.all([new Response(child.stdout).text(), child.exited]);
	return output;
}

describe("progress on a terminal", () => {
	test("a live line per running job, with its elapsed time, erased at the end", async () => {
		const output = await inTerminal("prepare");
		expect(output).toMatch(/⋯ lint {2}check \d+\.\d s/);
		expect(output).toMatch(/⋯ typecheck {2}check \d+\.\d s/);
		expect(output).toContain("2/2 done");
		// Each redraw moves up over the previous frame, to its first column, and clears down (node:readline's sequences).
		expect(output).toMatch(/\u001B\[\d+A\u001B\[1G\u001B\[0J/);
		expect(output).toContain("prepare passed: lint, typecheck");
	});

	test("with --json there is no progress line, only the envelope", async () => {
		const output = await inTerminal("prepare --json");
		expect(output).not.toContain("⋯ lint");
		expect(JSON.parse(output.trim()).ok).toBe(true);
	});
});
