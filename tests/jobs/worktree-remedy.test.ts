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
		expect(envelope.hints?.join("\n")).toContain("Run `discern worktree ensure` here: it runs [worktree.setup].ensure (`npm ci`)");
	}
});

test("without [worktree.setup], the hint says the worktree has no install and where setup's proposal is", async () => {
	const r = await makeWorktreeRepo({ config: '[jobs]\ntest = "tool-from-node-modules --run"\n' });
	made.push(r);
	const envelope = onlyJson((await runDiscern(["test", "--json"], { cwd: r.wt })).stdout) as Envelope;
	expect(envelope.hints?.join("\n")).toContain("discern.toml declares no [worktree.setup], so this worktree has no dependencies");
});

test("in the main checkout, no such hint: it is the person's own environment", async () => {
	const r = await makeWorktreeRepo({ config: '[jobs]\ntest = "tool-from-node-modules --run"\n[worktree.setup]\nensure = ["npm ci"]\n' });
	made.push(r);
	const envelope = onlyJson((await runDiscern(["test", "--json"], { cwd: r.root })).stdout) as Envelope;
	expect(envelope.error).toBe("gate_failed");
	expect(envelope.hints?.join("\n")).not.toContain("worktree ensure");
});

test("over MCP, where worktree ensure is the owner's to run, each hint asks the owner in a sentence that reads", async () => {
	const { worktreeSetupHint } = await import("../../src/setup/after-setup.ts");
	const { wordsFor } = await import("../../src/contract/refer.ts");
	const { LOOSE_VERBS } = await import("../../src/registry.ts");
	const { say } = wordsFor("mcp", LOOSE_VERBS);
	const hints = [
		worktreeSetupHint(say, { steps: [], ensure: ["npm ci"] }, []),
		worktreeSetupHint(say, { steps: ["make deps"], ensure: [] }, []),
		worktreeSetupHint(say, { steps: [], ensure: [] }, [{ run: "npm ci" }]),
	];
	for (const hint of hints) {
		expect(hint).toContain("sk the owner to run `discern worktree ensure` in a terminal");
		expect(hint).not.toMatch(/[Rr]un ask the owner|ensure` in a terminal runs/);
	}
});
