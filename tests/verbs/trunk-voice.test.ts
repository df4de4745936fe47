import { afterEach, describe, expect, test } from "bun:test";
import { compileInstructions, GENERATED_HEADER } from "../../src/agents/instructions.ts";
import { parseConfig } from "../../src/config/load.ts";
import { ref } from "../../src/contract/refer.ts";
import { done } from "../../src/proof/done.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { status } from "../../src/verbs/status/status.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, type TestRepo, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { render } from "../helpers/words.ts";

/**
 * One voice about the trunk (issue 22, item 3): the commit setup asks for is
 * the one commit made on the trunk, and status says so; a red trunk is fixed
 * as a task, as the generated instructions say; a Proof on the trunk judges
 * the trunk itself and lands nothing.
 */

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});
async function repo(options: Parameters<typeof makeRepo>[0]): Promise<TestRepo> {
	const r = await makeRepo(options);
	made.push(r);
	return r;
}

/** A Node project the way setup finds one: a test script, and node_modules/ not yet ignored (setup adds the line). */
const NODE_PROJECT = { "package.json": `${JSON.stringify({ name: "adopting", scripts: { test: "node -e 0" } }, null, 2)}\n` };

/** Every path setup writes with Claude Code wired, in the order the adoption commit names them. */
const SETUP_WROTE = [".claude/settings.json", ".gitignore", ".mcp.json", "AGENTS.md", "CLAUDE.md", "discern.toml", "docs/map/README.md"];
const ADOPTION_COMMIT = `git add -- ${SETUP_WROTE.join(" ")} && git commit -m 'Adopt discern'`;

type StatusEnvelope = { ok: boolean; data: { clean: boolean; next: { action: string; reason: string } } };

async function adopted(): Promise<TestRepo> {
	const r = await repo({ files: NODE_PROJECT });
	const setup = await runDiscern(["setup", "--confirmed", "--agents", "claude_code"], { cwd: r.root });
	expect(setup.exitCode).toBe(0);
	// Setup asks for the very commit status will name.
	expect(setup.stdout).toContain("commit them on the trunk as the adoption commit (`discern status` prints it)");
	return r;
}

async function statusJson(r: TestRepo): Promise<StatusEnvelope> {
	const run = await runDiscern(["status", "--json"], { cwd: r.root });
	expect(run.stderr).toBe("");
	const envelope = onlyJson(run.stdout);
	expectValidEnvelope("status", envelope);
	return envelope as unknown as StatusEnvelope;
}

describe("status right after setup: the adoption commit", () => {
	test("the files setup wrote, alone on the trunk, are committed there as the adoption commit (--json and text)", async () => {
		const r = await adopted();
		const seen = await statusJson(r);
		expect(seen.data.next.action).toBe(ADOPTION_COMMIT);
		expect(seen.data.next.reason).toContain("adoption commit");
		expect(seen.data.next.reason).not.toContain("branch of their own");
		const text = await runDiscern(["status"], { cwd: r.root });
		expect(text.exitCode).toBe(0);
		expect(text.stdout).toContain(`next  ${ADOPTION_COMMIT}`);
		expect(text.stdout).not.toContain("git switch -c");
	});

	test("the command status prints makes exactly that commit: the trunk is clean after it, and next is a task", async () => {
		const r = await adopted();
		const { data } = await statusJson(r);
		const run = Bun.spawn(["sh", "-c", data.next.action], { cwd: r.root, stdout: "ignore", stderr: "pipe" });
		expect(await run.exited).toBe(0);
		expect((await r.git("show", "--name-only", "--format=", "HEAD")).trim().split("\n")).toEqual(SETUP_WROTE);
		const after = await statusJson(r);
		expect(after.data.clean).toBe(true);
		expect(after.data.next.action).toBe("discern start --title TITLE");
	});

	test("a person's file setup did not write, beside setup's, keeps the advice to move the changes onto a branch", async () => {
		const r = await adopted();
		expect((await statusJson(r)).data.next.action).toBe(ADOPTION_COMMIT);
		await r.write("notes.txt", "my own work\n");
		const { data } = await statusJson(r);
		expect(data.next.action).toBe("git switch -c BRANCH, git commit, then discern done");
		expect(data.next.reason).toContain("branch of their own");
	});

	test("a person's file inside a folder setup wrote into (docs/) is not taken for setup's", async () => {
		const r = await adopted();
		expect((await statusJson(r)).data.next.action).toBe(ADOPTION_COMMIT);
		await r.write("docs/draft.md", "not setup's\n");
		const { data } = await statusJson(r);
		expect(data.next.action).toBe("git switch -c BRANCH, git commit, then discern done");
	});

	test("a hand-written AGENTS.md setup folded into docs/agents/ is part of the adoption commit", async () => {
		const r = await repo({ files: { ...NODE_PROJECT, "AGENTS.md": "# How we work\n\nRun the tests.\n" } });
		expect((await runDiscern(["setup", "--confirmed", "--agents", "codex"], { cwd: r.root })).exitCode).toBe(0);
		const { data } = await statusJson(r);
		expect(data.next.action).toBe(
			"git add -- .codex/config.toml .gitignore AGENTS.md discern.toml docs/agents/instructions.md docs/map/README.md && git commit -m 'Adopt discern'",
		);
		const run = Bun.spawn(["sh", "-c", data.next.action], { cwd: r.root, stdout: "ignore", stderr: "pipe" });
		expect(await run.exited).toBe(0);
		expect((await statusJson(r)).data.clean).toBe(true);
	});
});

const RED = '[jobs]\nlint = "true"\ntest = "exit 1"\n';
const GREEN = '[jobs]\nlint = "true"\ntest = "true"\n';

describe("what the trunk needs is a task: a red trunk, drift, stale agent files", () => {
	test("status on a red trunk: start a task to fix it, never fix and commit on the trunk (CLI and MCP)", async () => {
		const r = await repo({ config: RED });
		const red = await done(r.ctx(), {});
		expect(red.ok ? "" : red.error).toBe("gate_failed");
		const cli = await status(r.ctx(), {});
		expect(cli.data?.proof.state).toBe("red");
		expect(cli.data?.next.action).toBe("discern start --title 'fix the red trunk'");
		expect(cli.data?.next.reason).toContain("(test stage)");
		expect(cli.data?.next.reason).not.toMatch(/fix, commit/);
		const mcp = await status(r.ctx({ surface: "mcp" }), {});
		expect(mcp.data?.next.action).toBe(render(ref("start", { title: "fix the red trunk" }), "mcp", false));
	});

	test("done's red result on the trunk, and its refusal to rerun the same tree, point at a task", async () => {
		const r = await repo({ config: RED });
		const red = await done(r.ctx(), {});
		expectValidEnvelope("done", red);
		const start = render(ref("start", { title: "fix the red trunk" }), "cli");
		expect(red.hints?.join("\n")).toContain(start);
		expect(red.hints?.join("\n")).not.toMatch(/fix, commit, and run/);
		const again = await done(r.ctx(), {});
		expect(again.ok ? "" : again.error).toBe("unchanged_tree_rerun");
		expect(again.hints?.join("\n")).toContain(start);
	});

	test("after tree_drift on the trunk: never commit the jobs' changes there; they go onto a branch, and a clean trunk's repair is a task", async () => {
		const r = await repo({ config: '[jobs]\nlint = "echo built > out.txt"\ntest = "true"\n' });
		const drifted = await done(r.ctx(), {});
		expect(drifted.ok ? "" : drifted.error).toBe("gate_failed");
		expect(drifted.hints?.join("\n")).toContain(render(ref("start", { title: "fix the red trunk" }), "cli"));
		const dirty = (await status(r.ctx(), {})).data?.next;
		expect(dirty?.action).toBe("git switch -c BRANCH, commit the jobs' changes (or .gitignore their output), then discern done");
		expect(dirty?.reason).toContain("never a commit on the trunk");
		await r.git("clean", "-fdq");
		const clean = (await status(r.ctx(), {})).data?.next;
		expect(clean?.action).toBe("discern start --title 'fix the red trunk'");
		expect(clean?.reason).toContain("tree_drift");
	});

	test("stale agent files on the trunk are refreshed in a task, never regenerated and committed on the trunk", async () => {
		const r = await repo({ config: `[project]\nagents = ["codex"]\n${GREEN}` });
		// AGENTS.md as an older discern wrote it, committed on the trunk.
		await r.write("AGENTS.md", `${GENERATED_HEADER}\n\nAn older briefing.\n`);
		await r.commitAll("an older briefing");
		const seen = (await status(r.ctx(), {})).data;
		expect(seen?.stale_wiring).toContain("AGENTS.md");
		expect(seen?.next.action).toBe("discern start --title 'refresh the agent files'");
		expect(seen?.next.reason).toContain("`discern refresh`");
		expect(seen?.next.reason).not.toContain("regenerate them and commit");
		const stale = await done(r.ctx(), {});
		expect(stale.ok ? "" : stale.error).toBe("gate_failed");
		expect((stale.data as { failed_stage: string }).failed_stage).toBe("instructions");
		expect(stale.hints?.join("\n")).toContain(render(ref("start", { title: "refresh the agent files" }), "cli"));
		expect(stale.hints?.join("\n")).not.toContain("commit what it writes, then run");
	});

	test("the generated instructions say the same: the trunk's one direct commit is the adoption, a red trunk is a task", async () => {
		const parsed = parseConfig(GREEN);
		if (!parsed.ok) throw new Error("config");
		const text = compileInstructions(parsed.config, "main", [], LOOSE_VERBS);
		expect(text).toContain("adoption commit");
		expect(text).toContain("`main` itself is red");
		expect(text).toContain(render(ref("start", { title: "fix the red trunk" }), "mcp"));
	});
});

describe("done on the trunk", () => {
	test("a Proof on the trunk judges the trunk itself: nothing to land, no consent asked for (new and reused); a task's branch still asks", async () => {
		const r = await repo({ config: GREEN });
		const green = await done(r.ctx(), {});
		expectValidEnvelope("done", green);
		expect(green.ok).toBe(true);
		const words = (green.hints ?? []).join("\n");
		expect(words).not.toMatch(/consent/i);
		expect(words).toContain("judges the trunk `main` itself: there is nothing to land");
		const reused = await done(r.ctx(), {});
		expect(reused.message).toContain("already proven");
		expect((reused.hints ?? []).join("\n")).not.toMatch(/consent/i);
		expect((reused.hints ?? []).join("\n")).toContain("nothing to land");
		// On a task's branch the Proof still asks for the owner's consent to land.
		await r.git("switch", "-q", "-c", "agent/task");
		await r.write("change.txt", "work\n");
		await r.commitAll("work");
		const onBranch = await done(r.ctx(), {});
		expect(onBranch.ok).toBe(true);
		expect((onBranch.hints ?? []).join("\n")).toContain("consent");
	});
});

describe("accept about the trunk", () => {
	test("a worktree on the trunk itself: nothing to land, and the way on is a task, named as a verb", async () => {
		const r = await repo({ config: GREEN });
		await r.git("switch", "-q", "-c", "elsewhere");
		const path = `${r.root}-trunk`;
		await r.git("worktree", "add", "-q", path, "main");
		try {
			const refused = await invokeVerb("accept", testContext(path), { confirmed: true });
			expectValidEnvelope("accept", refused);
			expect(refused.ok ? "" : refused.error).toBe("no_trunk");
			expect(refused.message).toContain("nothing to land");
			const hints = (refused.hints ?? []).join("\n");
			expect(hints).toContain(render(ref("start", { title: "TITLE" }), "cli"));
			expect(hints).not.toContain("branch of its own");
		} finally {
			await r.git("worktree", "remove", "--force", path);
		}
	});
});
