import { afterEach, describe, expect, test } from "bun:test";
import { chmod, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { LOG_LIMIT_BYTES } from "../../src/jobs/log-cap.ts";
import { done } from "../../src/proof/done.ts";
import { status } from "../../src/verbs/status/status.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { prepare, test as testVerb } from "../helpers/inner-loop.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

const REPORTS = `${REPO_ROOT}/tests/fixtures/reports`;

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});
async function repo(config: string, files: Record<string, string> = { "README.md": "# fixture\n" }): Promise<TestRepo> {
	const r = await makeRepo({ config, files });
	made.push(r);
	return r;
}

function valid(verb: string, result: AnyResult): AnyResult {
	expectValidEnvelope(verb, result);
	return result;
}

const GREEN = `[jobs]
format = "true"
lint = "echo linting"
typecheck = "true"
test = "echo testing"
`;

describe("prepare and test", () => {
	test("prepare runs fix then check jobs, not build or test", async () => {
		const r = await repo(`${GREEN}build = "exit 9"\n`);
		const result = valid("prepare", await prepare(r.ctx(), {}));
		expect(result.ok).toBe(true);
		expect(result.steps?.map((step) => step.label)).toEqual(["format", "lint", "typecheck"]);
		expect(result.message).toContain("prepare passed: format, lint, typecheck");
	});

	test("prepare reports the files a formatter changed", async () => {
		const r = await repo('[jobs]\nformat = "echo reformatted > README.md"\nlint = "true"\n');
		const result = valid("prepare", await prepare(r.ctx(), {}));
		expect(result.ok).toBe(true);
		expect((result.data as { modified: string[] }).modified).toEqual(["README.md"]);
	});

	test("prepare reports a formatter's edit to a file that was already dirty", async () => {
		const r = await repo('[jobs]\nformat = "echo formatted >> README.md"\n');
		await r.write("README.md", "my own edit\n");
		const result = valid("prepare", await prepare(r.ctx(), {}));
		expect((result.data as { modified: string[] }).modified).toEqual(["README.md"]);
	});

	test("test runs only the test stage; a failure is gate_failed with a diagnostic", async () => {
		const r = await repo('[jobs]\nlint = "exit 1"\ntest = "echo boom-output; exit 2"\n');
		const result = valid("test", await testVerb(r.ctx(), {}));
		expect(result.ok).toBe(false);
		expect(result.ok ? "" : result.error).toBe("gate_failed");
		expect(result.steps?.map((step) => step.label)).toEqual(["test"]);
		const diagnostic = result.diagnostics?.[0];
		expect(diagnostic?.message).toBe("test failed (exit 2)");
		expect(diagnostic?.reproduce_cmd).toBe("echo boom-output; exit 2");
		expect(diagnostic?.output).toContain("boom-output");
		expect((result.data as { failed_stage: string }).failed_stage).toBe("test");
	});

	test("--dry-run returns the plan and runs nothing", async () => {
		const r = await repo('[jobs]\nformat = "touch ran-format"\nlint = "touch ran-lint"\n');
		const result = valid("prepare", await prepare(r.ctx(), { dry_run: true }));
		expect(result.dry_run).toBe(true);
		expect(result.plan?.filter((item) => item.disposition === "run").map((item) => item.label)).toEqual(["format", "lint"]);
		expect(result.steps).toBeUndefined();
		expect(await Bun.file(`${r.root}/ran-format`).exists()).toBe(false);
	});

	test("a second gate run in the same checkout refuses with locked, changing nothing", async () => {
		const r = await repo('[jobs]\ntest = "sleep 2"\n');
		// Through the pipeline: it takes the lock each verb declares.
		const first = invokeVerb("test", r.ctx());
		// Wait until the first run holds the lock (a loaded machine may take a while to get there).
		const lock = Bun.file(`${r.root}/.git/discern/lock`);
		for (let waited = 0; !(await lock.exists()) && waited < 5000; waited += 20) await Bun.sleep(20);
		const second = valid("prepare", await invokeVerb("prepare", r.ctx()));
		expect(second.ok ? "" : second.error).toBe("locked");
		expect((await first).ok).toBe(true);
	});
});

describe("done", () => {
	test("a red run names every job that failed, not only the first", async () => {
		const r = await repo(
			'[gate]\nfail_fast = false\n[jobs]\nlint = { run = "exit 3", stage = "check" }\ntypecheck = { run = "sleep 0.2; exit 1", stage = "check" }\n',
		);
		const result = await done(r.ctx(), {});
		expectValidEnvelope("done", result);
		// Which one is named first is whichever finished first: both are named, with their exit codes.
		expect(["lint failed (exit 3); also failed: typecheck (exit 1).", "typecheck failed (exit 1); also failed: lint (exit 3)."]).toContain(result.message);
	});

	test("green on a clean committed tree: a Proof, its line, and status says honored", async () => {
		const r = await repo(GREEN);
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.ok).toBe(true);
		const data = result.data as { proof: { line: string; head: string } | null; gate_ran: boolean };
		expect(data.gate_ran).toBe(true);
		expect(data.proof?.line).toMatch(/^Proof: main @ [0-9a-f]{12} passed format, lint, typecheck, test \(4 jobs, [\d.]+ s\)$/);
		const marker = JSON.parse(await readFile(`${r.root}/.git/discern/proof.json`, "utf8")) as { head: string };
		expect(marker.head).toBe(data.proof?.head ?? "");
		const seen = await status(r.ctx(), {});
		expect(seen.data?.proof.state).toBe("honored");
	});

	test("an unchanged tree returns the current Proof without running anything", async () => {
		const r = await repo('[jobs]\ntest = "echo run >> ../count-$(basename $DISCERN_ROOT)"\n');
		await done(r.ctx(), {});
		const again = valid("done", await done(r.ctx(), {}));
		expect(again.ok).toBe(true);
		expect((again.data as { gate_ran: boolean }).gate_ran).toBe(false);
		expect(again.steps).toBeUndefined();
	});

	test("a new commit makes the Proof stale", async () => {
		const r = await repo(GREEN);
		await done(r.ctx(), {});
		await r.write("new.txt", "x");
		await r.commitAll("more");
		expect((await status(r.ctx(), {})).data?.proof.state).toBe("stale");
	});

	test("a dirty tree is refused, naming the files; --standalone runs without a Proof", async () => {
		const r = await repo(GREEN);
		await r.write("README.md", "changed\n");
		const refused = valid("done", await done(r.ctx(), {}));
		expect(refused.ok ? "" : refused.error).toBe("dirty_worktree");
		expect(refused.message).toContain("README.md");
		const standalone = valid("done", await done(r.ctx(), { standalone: true }));
		expect(standalone.ok).toBe(true);
		expect((standalone.data as { proof: unknown; standalone: boolean }).proof).toBeNull();
		expect(await Bun.file(`${r.root}/.git/discern/proof.json`).exists()).toBe(false);
	});

	test("a detached HEAD is refused", async () => {
		const r = await repo(GREEN);
		await r.git("checkout", "-q", "--detach");
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.ok ? "" : result.error).toBe("detached_head");
	});

	test("red: failed_stage, the Proof removed; the same tree again is unchanged_tree_rerun unless --rerun", async () => {
		const r = await repo(GREEN);
		await done(r.ctx(), {});
		await r.write("discern.toml", `${GREEN.replace('test = "echo testing"', 'test = "exit 1"')}`);
		await r.commitAll("break the tests");
		const red = valid("done", await done(r.ctx(), {}));
		expect(red.ok ? "" : red.error).toBe("gate_failed");
		expect((red.data as { failed_stage: string }).failed_stage).toBe("test");
		expect(await Bun.file(`${r.root}/.git/discern/proof.json`).exists()).toBe(false);
		expect((await status(r.ctx(), {})).data?.proof.state).toBe("red");
		const again = valid("done", await done(r.ctx(), {}));
		expect(again.ok ? "" : again.error).toBe("unchanged_tree_rerun");
		const rerun = valid("done", await done(r.ctx(), { rerun: true }));
		expect(rerun.ok ? "" : rerun.error).toBe("gate_failed");
	});

	test("a program not found, or not executable, is the machine's fault: red, never the tree's verdict; once installed, the same tree goes green", async () => {
		const tools = await makeTempDir("discern-tools-");
		try {
			const program = join(tools, "check");
			const r = await repo(`[jobs]\ntest = "${program}"\n`);
			const missing = valid("done", await done(r.ctx(), {}));
			expect(missing.ok ? "" : missing.error).toBe("gate_failed");
			expect(missing.hints?.[0]).toContain("test: a program it runs was not found (exit 127)");
			expect(missing.hints?.[0]).toContain("not recorded as the tree's verdict");
			// Not executable yet: exit 126, again not the tree's verdict (no unchanged_tree_rerun).
			await writeFile(program, "#!/bin/sh\nexit 0\n");
			const denied = valid("done", await done(r.ctx(), {}));
			expect(denied.ok ? "" : denied.error).toBe("gate_failed");
			expect(denied.hints?.[0]).toContain("could not be executed (exit 126)");
			await chmod(program, 0o755);
			const installed = valid("done", await done(r.ctx(), {}));
			expect(installed.ok).toBe(true);
		} finally {
			await rm(tools, { recursive: true, force: true });
		}
	});

	test("a tree that fails on its own merits is still its verdict: the same tree again is unchanged_tree_rerun", async () => {
		const r = await repo('[jobs]\ntest = "exit 3"\n');
		const red = valid("done", await done(r.ctx(), {}));
		expect(red.hints?.join(" ")).not.toContain("That is the machine");
		const again = valid("done", await done(r.ctx(), {}));
		expect(again.ok ? "" : again.error).toBe("unchanged_tree_rerun");
	});

	test("a job that changes a tracked file fails with tree_drift, naming the file and the stage", async () => {
		const r = await repo('[jobs]\nformat = "echo reformatted > README.md"\ntest = "true"\n');
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.ok).toBe(false);
		const data = result.data as { failed_stage: string; drift: { stage: string; files: string[] } };
		expect(data.failed_stage).toBe("tree_drift");
		expect(data.drift).toEqual({ stage: "fix", files: ["README.md"] });
		expect(result.steps?.find((step) => step.label === "test")?.outcome).toBe("skipped");
	});

	test("a job that commits moves HEAD: no Proof", async () => {
		const r = await repo('[jobs]\ntest = "git -c user.name=x -c user.email=x@y commit -q --allow-empty -m sneaky"\n');
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.ok).toBe(false);
		expect((result.data as { failed_stage: string }).failed_stage).toBe("tree_drift");
	});

	test("scope gates run only for changed scopes", async () => {
		const config = `${GREEN}[scopes.web]\npaths = ["web/**"]\ngate = "echo web-gate"\n[scopes.api]\npaths = ["api/**"]\ngate = "exit 1"\n`;
		const r = await repo(config, { "web/a.txt": "a", "api/b.txt": "b" });
		await r.git("switch", "-q", "-c", "feature");
		await r.write("web/a.txt", "changed");
		await r.commitAll("touch web");
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.ok).toBe(true);
		expect((result.data as { scopes_changed: string[] }).scopes_changed).toEqual(["web"]);
		expect(result.steps?.map((step) => step.label)).toContain("scope:web");
		expect(result.steps?.map((step) => step.label)).not.toContain("scope:api");
	});

	test("in a worktree behind the trunk: behind_trunk with the update hint", async () => {
		const r = await repo(GREEN);
		const path = `${r.root}.wt`;
		await r.git("worktree", "add", "-q", "-b", "agent/task", path);
		try {
			await r.write("trunk.txt", "moved on");
			await r.commitAll("trunk moves");
			const result = valid("done", await done(r.ctx({ cwd: path }), {}));
			expect(result.ok ? "" : result.error).toBe("behind_trunk");
			expect(result.hints?.[0]).toBe("Run `discern update` to merge the trunk in (never a rebase), then `discern done` again.");
		} finally {
			await r.git("worktree", "remove", "--force", path);
		}
	});

	test("--dry-run shows the plan, with skipped scope gates, and runs nothing", async () => {
		const r = await repo(`${GREEN}build = "touch built"\n[scopes.web]\npaths = ["web/**"]\ngate = "touch web"\n`);
		await r.git("switch", "-q", "-c", "feature");
		const result = valid("done", await done(r.ctx(), { dry_run: true }));
		expect(result.dry_run).toBe(true);
		const labels = result.plan?.map((item) => `${item.disposition}:${item.label}`);
		expect(labels).toEqual(["run:format", "run:build", "run:lint", "run:typecheck", "run:test", "skip:scope:web"]);
		expect(await Bun.file(`${r.root}/built`).exists()).toBe(false);
	});

	test("a hanging job times out; the diagnostic says so", async () => {
		const r = await repo('[jobs]\ntest = { run = "sleep 60", timeout = 1 }\n');
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.diagnostics?.[0]?.message).toBe("test timed out after 1 s (the whole process tree was killed)");
	});

	test("very noisy output: the excerpt is bounded and marked, the whole output is in the log", async () => {
		const r = await repo('[jobs]\ntest = "seq 1 200000; exit 1"\n');
		const result = valid("done", await done(r.ctx(), {}));
		const diagnostic = result.diagnostics?.[0];
		expect(diagnostic?.truncated).toBe(true);
		expect(diagnostic?.output?.length ?? 0).toBeLessThanOrEqual(16_000);
		expect(diagnostic?.output).toContain("\n200000\n");
		expect(diagnostic?.output?.startsWith("1\n2\n3\n")).toBe(true);
		expect((await readFile(diagnostic?.output_path ?? "", "utf8")).split("\n").length).toBeGreaterThan(200_000);
	});

	test("a job printing SARIF yields per-finding diagnostics with file, line, col and rule", async () => {
		const sarif = await Bun.file(`${REPORTS}/eslint.sarif`).text();
		const r = await repo('[jobs]\nlint = "echo running eslint; cat lint.sarif; exit 1"\ntest = "true"\n', { "lint.sarif": sarif });
		const result = valid("done", await done(r.ctx(), {}));
		const findings = (result.diagnostics ?? []).filter((diagnostic) => diagnostic.file);
		expect(findings.length).toBeGreaterThan(0);
		for (const finding of findings) {
			expect(finding.tool).toBe("lint");
			expect(finding.rule).toBeDefined();
			expect(finding.line).toBeGreaterThan(0);
		}
		expect(result.diagnostics?.[0]?.message).toBe("lint failed (exit 1)");
	});

	test("a job's declared JUnit report file yields per-test diagnostics", async () => {
		const junit = await Bun.file(`${REPORTS}/pytest-junit.xml`).text();
		// The report is an untracked file the job writes: not tree drift, which concerns tracked files.
		const r = await repo('[jobs.test]\nrun = "cp fixture.xml report.xml; exit 1"\nreport = "report.xml"\n', { "fixture.xml": junit });
		const result = valid("done", await done(r.ctx(), {}));
		const perTest = (result.diagnostics ?? []).filter((diagnostic) => diagnostic.message !== "test failed (exit 1)");
		expect(perTest.length).toBeGreaterThan(0);
		expect(perTest.every((diagnostic) => diagnostic.tool === "test")).toBe(true);
	});

	test("a flaky job: red, then unchanged_tree_rerun, then --rerun goes green with a Proof", async () => {
		// Fails on its first run, passes after: the counter lives outside the tree.
		const r = await repo('[jobs]\ntest = "f=../flaky-$(basename $DISCERN_ROOT); if [ -e $f ]; then exit 0; else touch $f; exit 1; fi"\n');
		const first = valid("done", await done(r.ctx(), {}));
		expect(first.ok ? "" : first.error).toBe("gate_failed");
		const second = valid("done", await done(r.ctx(), {}));
		expect(second.ok ? "" : second.error).toBe("unchanged_tree_rerun");
		const third = valid("done", await done(r.ctx(), { rerun: true }));
		expect(third.ok).toBe(true);
		expect((third.data as { proof: { line: string } | null }).proof?.line).toContain("passed test");
		await rm(`${r.root}/../flaky-${r.root.split("/").pop()}`, { force: true });
	});

	test("100 MB of output from a failing job: bounded, marked excerpt; a capped log on disk", async () => {
		const r = await repo("[jobs]\ntest = \"head -c 104857600 /dev/zero | tr '\\\\0' y; echo; echo the-last-line; exit 5\"\n");
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.steps?.[0]?.exit_code).toBe(5);
		const diagnostic = result.diagnostics?.[0];
		expect(diagnostic?.message).toBe("test failed (exit 5)");
		expect(diagnostic?.truncated).toBe(true);
		expect(diagnostic?.output?.length ?? 0).toBeLessThanOrEqual(16_000);
		expect(diagnostic?.output).toContain("the-last-line");
		expect(diagnostic?.output).toContain(`the job printed ${104857600 + "\nthe-last-line\n".length} bytes`);
		expect((await stat(diagnostic?.output_path ?? "")).size).toBeLessThanOrEqual(LOG_LIMIT_BYTES + 1024);
	});

	test("an interrupted run says nothing about the tree: the next done runs, the Proof stays", async () => {
		const r = await repo('[jobs]\ntest = "sleep 30"\n');
		const controller = new AbortController();
		setTimeout(() => controller.abort("SIGINT"), 300);
		const interrupted = valid("done", await done(r.ctx({ signal: controller.signal }), {}));
		expect(interrupted.ok ? "" : interrupted.error).toBe("interrupted");
		expect((interrupted.data as { interrupted: boolean }).interrupted).toBe(true);
		await r.write("discern.toml", '[jobs]\ntest = "true"\n');
		await r.commitAll("quick test");
		const proven = valid("done", await done(r.ctx(), {}));
		expect(proven.ok).toBe(true);
		const controller2 = new AbortController();
		controller2.abort("SIGINT");
		await done(r.ctx({ signal: controller2.signal }), { rerun: true });
		expect((await status(r.ctx(), {})).data?.proof.state).toBe("honored");
	});

	test("a prepare between two red done runs does not lift the unchanged-tree guard", async () => {
		const r = await repo('[jobs]\nlint = "true"\ntest = "exit 1"\n');
		await done(r.ctx(), {});
		expect((await prepare(r.ctx(), {})).ok).toBe(true);
		const again = valid("done", await done(r.ctx(), {}));
		expect(again.ok ? "" : again.error).toBe("unchanged_tree_rerun");
	});

	test("--rerun runs a proven tree again; a reused Proof carries its standards", async () => {
		const r = await repo('[jobs]\ntest = "true"\n[standards.size]\nrun = "echo DISCERN_METRIC size 5"\ndirection = "down"\nlimit = 10\n');
		await done(r.ctx(), {});
		const reused = valid("done", await done(r.ctx(), {}));
		expect((reused.data as { gate_ran: boolean; standards: unknown[] }).standards).toEqual([{ name: "size", verdict: "improved", value: 5, limit: 10 }]);
		const rerun = valid("done", await done(r.ctx(), { rerun: true }));
		expect((rerun.data as { gate_ran: boolean }).gate_ran).toBe(true);
		expect(rerun.ok).toBe(true);
	});

	test("a job that creates an untracked file is tree drift: the gate must leave the tree as committed", async () => {
		const r = await repo('[jobs]\nbuild = "echo built > out.txt"\ntest = "true"\n');
		const result = valid("done", await done(r.ctx(), {}));
		expect((result.data as { failed_stage: string }).failed_stage).toBe("tree_drift");
		expect((result.data as { drift: { files: string[] } }).drift.files).toEqual(["out.txt"]);
		expect(result.hints?.some((hint) => hint.includes(".gitignore"))).toBe(true);
	});

	test("drift names paths with spaces exactly", async () => {
		const r = await repo("[jobs]\nformat = \"echo x >> 'my notes.md'; echo y >> 'your notes.md'\"\n", { "my notes.md": "a\n", "your notes.md": "b\n" });
		const result = valid("done", await done(r.ctx(), {}));
		expect((result.data as { drift: { files: string[] } }).drift.files).toEqual(["my notes.md", "your notes.md"]);
	});

	test("a declared report left over from an earlier run is not reported as news", async () => {
		const sarif = await Bun.file(`${REPORTS}/eslint.sarif`).text();
		const r = await repo('[jobs.lint]\nrun = "exit 2"\nreport = "lint.sarif"\n', { "lint.sarif": sarif });
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.diagnostics?.map((diagnostic) => diagnostic.message)).toEqual(["lint failed (exit 2)"]);
	});

	test("files git is told to ignore (assume-unchanged) cannot earn a Proof", async () => {
		const r = await repo('[jobs]\ntest = "grep -qx good README.md"\n', { "README.md": "bad\n" });
		await r.git("update-index", "--assume-unchanged", "README.md");
		await r.write("README.md", "good\n");
		const result = valid("done", await done(r.ctx(), {}));
		expect(result.ok ? "" : result.error).toBe("dirty_worktree");
		expect(result.message).toContain("README.md");
	});

	test("a standalone run does not lift the red record of the commit; status names the failed stage", async () => {
		const r = await repo('[jobs]\nlint = "true"\ntest = "exit 1"\n');
		await done(r.ctx(), {});
		await prepare(r.ctx(), {});
		const seen = await status(r.ctx(), {});
		expect(seen.data?.proof).toEqual({ state: "red", line: null, failed_stage: "test" });
		expect(seen.data?.next.reason).toContain("(test stage)");
		await r.write("README.md", "dirty\n");
		await done(r.ctx(), { standalone: true });
		await r.git("checkout", "--", "README.md");
		const again = valid("done", await done(r.ctx(), {}));
		expect(again.ok ? "" : again.error).toBe("unchanged_tree_rerun");
	});

	test("a Proof belongs to its branch: the same commit on another branch is gated again", async () => {
		const r = await repo(GREEN);
		await done(r.ctx(), {});
		await r.git("switch", "-q", "-c", "feature");
		const result = valid("done", await done(r.ctx(), {}));
		expect((result.data as { gate_ran: boolean; proof: { branch: string } }).gate_ran).toBe(true);
		expect((result.data as { proof: { branch: string } }).proof.branch).toBe("feature");
	});
});
