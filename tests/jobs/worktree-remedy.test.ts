import { afterEach, expect, test } from "bun:test";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/**
 * A program not found in a task worktree is most often one its setup
 * installs: prepare, test and done say so, with the verb that runs the
 * setup (or the section to declare it in), and only there.
 */

const made: WorktreeRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});

type Envelope = { ok: boolean; error?: string; hints?: string[] };

test("in a task worktree, exit 127 points at worktree ensure and the declared install", async () => {
	const r = await makeWorktreeRepo({ config: '[jobs]\ntest = "tool-from-node-modules --run"\n[worktree.setup]\nensure = ["npm ci"]\n' });
	made.push(r);
	for (const verb of ["test", "done"]) {
		const run = await runDiscern([verb, "--json"], { cwd: r.wt });
		const envelope = onlyJson(run.stdout) as Envelope;
		expect(envelope.error).toBe("gate_failed");
		expect(envelope.hints?.join("\n")).toContain("`discern worktree ensure` runs [worktree.setup].ensure (`npm ci`) here");
	}
});

test("without [worktree.setup], the hint says the worktree has no install and where setup's proposal is", async () => {
	const r = await makeWorktreeRepo({ config: '[jobs]\ntest = "tool-from-node-modules --run"\n' });
	made.push(r);
	const envelope = onlyJson((await runDiscern(["test", "--json"], { cwd: r.wt })).stdout) as Envelope;
	expect(envelope.hints?.join("\n")).toContain("declares none under [worktree.setup] (`discern setup verify` shows what setup proposes)");
});

test("in the main checkout, no such hint: it is the person's own environment", async () => {
	const r = await makeWorktreeRepo({ config: '[jobs]\ntest = "tool-from-node-modules --run"\n[worktree.setup]\nensure = ["npm ci"]\n' });
	made.push(r);
	const envelope = onlyJson((await runDiscern(["test", "--json"], { cwd: r.root })).stdout) as Envelope;
	expect(envelope.error).toBe("gate_failed");
	expect(envelope.hints?.join("\n")).not.toContain("worktree ensure");
});
