import { afterEach, describe, expect, test } from "bun:test";
import { gatherFacts } from "../../src/coach/facts.ts";
import { evaluate, nextRule, RULES, scoreOf } from "../../src/coach/rules.ts";
import { parseConfig } from "../../src/config/load.ts";
import { locateRepository } from "../../src/git/repository.ts";
import { improvement } from "../../src/verbs/improvement/improvement.ts";
import { renderImprovement } from "../../src/verbs/improvement/render.ts";
import type { ImprovementData } from "../../src/verbs/improvement/schema.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { sayFor } from "../helpers/words.ts";

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});
async function repo(options: Parameters<typeof makeRepo>[0] = {}): Promise<TestRepo> {
	const r = await makeRepo(options);
	made.push(r);
	return r;
}

function states(data: ImprovementData | undefined): Record<string, string> {
	return Object.fromEntries((data?.categories ?? []).flatMap((category) => category.rules.map((rule) => [rule.id, rule.state])));
}

/** A project that does most things right: every stage, a standard, a map, instructions, an agent wired. */
const GOOD_CONFIG = `[project]
agents = ["claude_code"]

[jobs]
format = "true"
build = "true"
lint = "true"
typecheck = "true"
test = "true"

[standards.coverage]
run = "echo DISCERN_METRIC coverage 90"
direction = "up"
limit = 80

[instructions]
sources = ["docs/agent-instructions.md"]
`;
const GOOD_FILES = {
	"docs/map/README.md": "# Map\n",
	"docs/map/core/README.md": "# Core\n",
	"docs/agent-instructions.md": "Build with make.\n",
	".mcp.json": '{"mcpServers":{"discern":{"command":"discern","args":["mcp"]}}}',
};

describe("improvement", () => {
	test("a bare configured repository scores low and names the test job next", async () => {
		const r = await repo({ config: "" });
		const result = await improvement(r.ctx(), {});
		expect(result.ok).toBe(true);
		// Applicable weight 86 (test 20, check 12, green 10, agents 10, standards 8, map 8, instructions 8, format 6, timeout 4); only the timeout passes.
		expect(result.data?.score).toBe(5);
		expect(result.data?.next?.rule).toBe("test_job");
		expect(result.data?.next?.fix).toContain('`test = "…"`');
		expect(result.data?.next?.gain).toBe(23);
		expect(states(result.data)).toMatchObject({ test_job: "fail", gate_timeout: "pass", build_job: "skip", worktree_setup: "skip", scopes: "skip" });
		// Weakest first; ties keep the fixed order.
		expect(result.data?.categories.map((category) => [category.name, category.score])).toEqual([
			["quality", 0],
			["knowledge", 0],
			["agents", 0],
			["gate", 12],
			["isolation", 100],
		]);
	});

	test("adding jobs, a standard and the map raises the score step by step, deterministically", async () => {
		const r = await repo({ config: '[jobs]\ntest = "true"\n' });
		const step1 = await improvement(r.ctx(), {});
		// test 20 + timeout 4 = 24 / 86.
		expect(step1.data?.score).toBe(28);
		expect(step1.data?.next?.rule).toBe("check_jobs");

		await r.write("discern.toml", '[jobs]\nformat = "true"\nlint = "true"\ntest = "true"\n\n[standards.size]\nrun = "true"\ndirection = "down"\nlimit = 10\n');
		await r.write("docs/map/core/README.md", "# Core\n");
		await r.commitAll("more");
		const step2 = await improvement(r.ctx(), {});
		// + check 12 + format 6 + standards 8 + map 8 = 58 / 86.
		expect(step2.data?.score).toBe(67);
		expect(states(step2.data)).toMatchObject({ check_jobs: "pass", formatter: "pass", standards: "pass", map_tree: "pass", gate_green: "fail" });
		expect(step2.data?.next?.rule).toBe("gate_green");
	});

	test("a well-set-up project passes everything once its gate is green", async () => {
		const r = await repo({ config: GOOD_CONFIG, files: GOOD_FILES });
		const before = await improvement(r.ctx(), {});
		expect(before.data?.score).toBe(89); // everything but gate_green: 82 / 92
		expect(before.data?.next?.rule).toBe("gate_green");
		// Agents are configured, so the gate also checks the generated agent files: refresh writes them first.
		const { refresh } = await import("../../src/agents/refresh.ts");
		expect((await refresh(r.ctx(), {}, { execPath: "/opt/discern/bin/discern", script: null })).ok).toBe(true);
		await r.commitAll("agent wiring");
		const done = await import("../../src/proof/done.ts");
		expect((await done.done(r.ctx(), {})).ok).toBe(true);
		const after = await improvement(r.ctx(), {});
		expect(after.data?.score).toBe(100);
		expect(after.data?.next).toBeNull();
		expect(after.message).toContain("Every applicable rule passes");
	});

	test("partial credit is half: one check job where the stack has two, a region without a README", async () => {
		const r = await repo({
			config: '[jobs]\nlint = "true"\ntest = "true"\n',
			files: { "package.json": JSON.stringify({ scripts: { lint: "x", typecheck: "tsc", test: "t" } }), "docs/map/core/notes.md": "x\n" },
		});
		const result = await improvement(r.ctx(), {});
		const data = result.data;
		expect(states(data)).toMatchObject({ check_jobs: "partial", map_tree: "partial", worktree_setup: "fail" });
		const rules = data?.categories.flatMap((category) => category.rules) ?? [];
		expect(rules.find((rule) => rule.id === "check_jobs")?.fix).toContain('`typecheck = "npm run typecheck"`');
		expect(rules.find((rule) => rule.id === "worktree_setup")?.fix).toContain("npm ci");
		// test 20 + check 6 + map 4 + timeout 4 = 34 / (86 + worktree 6) = 36.96.
		expect(data?.score).toBe(37);
	});

	test("a multi-package repository wants scopes", async () => {
		const r = await repo({ config: "", files: { "pnpm-workspace.yaml": "packages: ['apps/*']\n" } });
		expect(states((await improvement(r.ctx(), {})).data).scopes).toBe("fail");
		await r.write("discern.toml", '[scopes.web]\npaths = ["apps/web/**"]\n');
		expect(states((await improvement(r.ctx(), {})).data).scopes).toBe("pass");
	});

	test("a pnpm-workspace.yaml without a packages: list (only build settings) is a single package", async () => {
		// pnpm 10 keeps its build allow-list there even in a one-package project.
		for (const text of ["onlyBuiltDependencies:\n  - esbuild\n", "allowBuilds:\n  esbuild: true\n"]) {
			const r = await repo({ config: "", files: { "pnpm-workspace.yaml": text } });
			const rules = (await improvement(r.ctx(), {})).data?.categories.flatMap((category) => category.rules) ?? [];
			const scopes = rules.find((rule) => rule.id === "scopes");
			expect(scopes?.state).toBe("skip");
			expect(scopes?.detail).not.toContain("declares several packages");
		}
	});

	test("an unbounded gate timeout fails, and the fix names config set on each surface", async () => {
		const r = await repo({ config: "[gate]\ntimeout = 0\n" });
		const cli = await improvement(r.ctx(), { category: "gate" });
		const timeout = cli.data?.categories[0]?.rules.find((rule) => rule.id === "gate_timeout");
		expect(timeout?.state).toBe("fail");
		expect(timeout?.fix).toContain("`discern config set gate.timeout 600`");
		const mcp = await improvement(r.ctx({ surface: "mcp" }), { category: "gate" });
		expect(mcp.data?.categories[0]?.rules.find((rule) => rule.id === "gate_timeout")?.fix).toContain(
			"ask the owner to run `discern config set gate.timeout 600` in a terminal",
		);
	});

	test("--category restricts the rules and the score to one category", async () => {
		const r = await repo({ config: '[jobs]\ntest = "true"\n' });
		const result = await improvement(r.ctx(), { category: "gate" });
		expect(result.ok).toBe(true);
		expect(result.data?.categories.map((category) => category.name)).toEqual(["gate"]);
		// test 20 + timeout 4 of 34 (build skipped).
		expect(result.data?.score).toBe(71);
		expect(result.data?.next?.rule).toBe("gate_green");
	});

	test("an unknown category is refused with the nearest one", async () => {
		const r = await repo({ config: "" });
		const result = await improvement(r.ctx(), { category: "qualty" });
		expect(result.ok).toBe(false);
		expect(result.ok ? "" : result.error).toBe("unknown_category");
		expect(result.message).toContain("Did you mean `quality`?");
		expect(result.hints?.[0]).toBe("Did you mean `discern improvement --category quality`?");
		const mcp = await improvement(r.ctx({ surface: "mcp" }), { category: "qualty" });
		expect(mcp.hints?.[0]).toBe('Did you mean `discern_improvement` with `{"category":"quality"}`?');
	});

	test("--min-score: at or above passes, below fails with the data still there", async () => {
		const r = await repo({ config: "" });
		expect((await improvement(r.ctx(), { min_score: 5 })).ok).toBe(true);
		const below = await improvement(r.ctx(), { min_score: 50 });
		expect(below.ok).toBe(false);
		expect(below.ok ? "" : below.error).toBe("below_min_score");
		expect(below.data?.score).toBe(5);
		expect(below.hints?.[0]).toContain("test = ");
	});

	test("through the CLI: exit 1 below the floor with the envelope on stdout, 2 for a floor out of range", async () => {
		const r = await repo({ config: "" });
		const below = await runDiscern(["improvement", "--min-score", "50", "--json"], { cwd: r.root });
		expect(below.exitCode).toBe(1);
		const envelope = onlyJson(below.stdout);
		expect(envelope.error).toBe("below_min_score");
		expect((envelope.data as ImprovementData).score).toBe(5);
		const above = await runDiscern(["improvement", "--min-score", "5"], { cwd: r.root });
		expect(above.exitCode).toBe(0);
		expect(above.stdout).toStartWith('score  5/100\nnext   Add `test = "…"`');
		expect((await runDiscern(["improvement", "--min-score", "101", "--json"], { cwd: r.root })).exitCode).toBe(2);
	});

	test("the same input twice gives the same output", async () => {
		const r = await repo({ config: GOOD_CONFIG, files: { ...GOOD_FILES, "package.json": '{"scripts":{"test":"x"}}' } });
		const first = await improvement(r.ctx(), {});
		const second = await improvement(r.ctx(), {});
		expect(JSON.stringify(second)).toBe(JSON.stringify(first));
		const text = (result: typeof first) => renderImprovement(result, { color: false, verbose: true });
		expect(text(second)).toBe(text(first));
	});

	test("rules are pure over gathered facts; the next rule recovers the most weight, ties by catalog order", async () => {
		const r = await repo({ config: "" });
		const located = await locateRepository(r.root);
		if (!located.found) throw new Error("no repository");
		const parsed = parseConfig("");
		if (!parsed.ok) throw new Error("config");
		const facts = await gatherFacts(located.repository, parsed.config);
		const rules = evaluate(facts, sayFor("cli"));
		expect(rules.map((rule) => rule.id)).toEqual(RULES.map((rule) => rule.id));
		expect(scoreOf(rules)).toBe(5);
		// With test_job passing, check_jobs (12) is worth more than gate_green and agents_wired (10 each).
		const withTests = rules.map((rule) => (rule.id === "test_job" ? { ...rule, state: "pass" as const } : rule));
		expect(nextRule(withTests)?.rule.id).toBe("check_jobs");
		const tied = withTests.map((rule) => (rule.id === "check_jobs" ? { ...rule, state: "pass" as const } : rule));
		expect(nextRule(tied)?.rule.id).toBe("gate_green");
		expect(new Set(RULES.map((rule) => rule.id)).size).toBe(RULES.length);
	});
});
