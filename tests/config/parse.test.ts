import { afterAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jobsByStage, resolveJobs } from "../../src/config/jobs.ts";
import { CONFIG_FILE, type ConfigIssue, loadConfig, MAX_CONFIG_BYTES, parseConfig, parseConfigPlaced } from "../../src/config/load.ts";
import type { DiscernConfig } from "../../src/config/schema.ts";
import { indexKeyPositions } from "../../src/edit/toml.ts";

const made: string[] = [];

afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
	const dir = await mkdtemp(join(tmpdir(), "discern-config-"));
	made.push(dir);
	return dir;
}

/** A config that must parse; fails the test with its issues otherwise. */
function valid(source: string): DiscernConfig {
	const outcome = parseConfig(source);
	if (!outcome.ok) throw new Error(`expected a valid config, got: ${JSON.stringify(outcome.issues)}`);
	return outcome.config;
}

/** The issues of a config that must not parse, each placed on its line as a person is shown them. */
function issuesOf(source: string | Uint8Array): ConfigIssue[] {
	const outcome = parseConfig(source, indexKeyPositions);
	if (outcome.ok) throw new Error(`expected an invalid config, but it parsed: ${JSON.stringify(outcome.config)}`);
	return outcome.issues;
}

function firstIssue(source: string | Uint8Array): ConfigIssue {
	const [first] = issuesOf(source);
	if (!first) throw new Error("an invalid config must report at least one issue");
	return first;
}

const DEFAULTS: DiscernConfig = {
	project: { agents: [] },
	repository: { branch_prefix: "agent/" },
	jobs: {},
	gate: { fail_fast: true, timeout: 600 },
	scopes: {},
	standards: {},
	acceptance: { pre_authorized: [] },
	worktree: {
		root: "",
		inherit_env: [],
		env_files: [".env", ".env.local"],
		port: false,
		seed: [],
		setup: { steps: [], ensure: [] },
		resources: {},
	},
	map: { dir: "docs/map/" },
	instructions: { sources: [] },
};

describe("parseConfig: defaults", () => {
	test("an empty file is valid and every section has its default", () => {
		expect(valid("")).toEqual(DEFAULTS);
		const outcome = parseConfig(new Uint8Array());
		expect(outcome.ok && outcome.config).toEqual(DEFAULTS);
	});

	test("a file of only comments and blank lines is the same as an empty one", () => {
		expect(valid("# nothing yet\n\n   # [gate]\n#timeout = 5\n")).toEqual(DEFAULTS);
	});

	test("a section that is present keeps the defaults of the keys it omits", () => {
		const config = valid("[gate]\nfail_fast = false\n[worktree]\nport = true\n");
		expect(config.gate).toEqual({ fail_fast: false, timeout: 600 });
		expect(config.worktree.env_files).toEqual([".env", ".env.local"]);
		expect(config.worktree.setup).toEqual({ steps: [], ensure: [] });
	});
});

describe("parseConfig: problems", () => {
	test("every problem is reported at once, sorted by line", () => {
		// Written so that schema order (project, gate, cross-checks) differs from line order.
		const source = [
			"[jobs.e2e]", // 1: custom job without a stage (a cross-check)
			'run = "bun run e2e"',
			"",
			"[project]",
			'agents = ["claud"]', // 5: not an agent
			"",
			"[gate]",
			'timeout = "10"', // 8: wrong type
			"",
		].join("\n");
		const issues = issuesOf(source);
		expect(issues).toHaveLength(3);
		expect(issues.map((issue) => issue.line)).toEqual([1, 5, 8]);
		expect(issues.map((issue) => issue.key)).toEqual(["jobs.e2e", "project.agents.0", "gate.timeout"]);
		expect(issues[2]?.message).toContain("`gate.timeout` must be a number, got string");
	});

	test("lines are found only when asked: parseConfigPlaced loads the TOML editor for a config with problems", async () => {
		const source = '[jobs]\ntest = "bun test"\n\n[gate]\ntimeout = "10"\n';
		const bare = parseConfig(source);
		expect(bare.ok).toBe(false);
		if (bare.ok) return;
		expect(bare.issues[0]?.line).toBeUndefined();
		expect(await parseConfigPlaced(source)).toEqual(parseConfig(source, indexKeyPositions));
		expect(issuesOf(source)[0]).toMatchObject({ key: "gate.timeout", line: 5 });
		// A valid config, or one TOML cannot read (smol-toml's own line), is the same either way.
		expect(await parseConfigPlaced('[jobs]\ntest = "x"\n')).toEqual(parseConfig('[jobs]\ntest = "x"\n'));
		expect(await parseConfigPlaced("[jobs\n")).toEqual(parseConfig("[jobs\n"));
	});

	test("a syntax error carries the line and the column", () => {
		const issues = issuesOf('[jobs]\nlint = "bunx biome lint ."\ntest = { run = "bun test" timeout = 900 }\n');
		expect(issues).toHaveLength(1);
		// Column 27 is where `timeout` starts, right after the missing comma.
		expect(issues[0]).toMatchObject({ line: 3, col: 27 });
		expect(issues[0]?.message).toStartWith("TOML syntax:");
	});

	test("a schema problem carries the line of its key", () => {
		expect(firstIssue("\n\n[gate]\n\nfail_fast = 1\n")).toMatchObject({ key: "gate.fail_fast", line: 5, col: 1 });
	});

	test("an unknown key suggests the nearest valid one: `timout` → `timeout`", () => {
		const issue = firstIssue("[gate]\ntimout = 10\n");
		expect(issue).toMatchObject({ key: "gate.timout", line: 2, suggestion: "timeout" });
		expect(issue.message).toContain("did you mean `timeout`?");
	});

	test("an unknown table suggests the nearest valid one: `[gatee]` → `gate`", () => {
		const issue = firstIssue('[jobs]\ntest = "bun test"\n[gatee]\ntimeout = 10\n');
		expect(issue).toMatchObject({ key: "gatee", line: 3, suggestion: "gate" });
		expect(issue.message).toContain("did you mean `gate`?");
	});

	test("an unknown key inside an inline job table is placed on its own column", () => {
		const issue = firstIssue('[jobs]\ntest = { run = "x", timeot = 5 }\n');
		expect(issue).toMatchObject({ key: "jobs.test.timeot", line: 2, col: 21, suggestion: "timeout" });
	});

	test("an unknown key far from every valid one gets no suggestion", () => {
		const issue = firstIssue("[gate]\nzzzzzzzzzzzz = 1\n");
		expect(issue.message).toContain("unknown key `zzzzzzzzzzzz`");
		expect(issue.suggestion).toBeUndefined();
	});

	test("a custom job without a stage is an issue that names the job", () => {
		const issue = firstIssue('[jobs]\ntest = "bun test"\ne2e = "bun run e2e"\n');
		expect(issue).toMatchObject({ key: "jobs.e2e", line: 3 });
		expect(issue.message).toContain("must declare its stage");
	});

	test("pre_authorized naming an undeclared scope is an issue, with a suggestion when one is close", () => {
		const issue = firstIssue('[scopes.docs]\npaths = ["docs/**"]\n[acceptance]\npre_authorized = ["doc"]\n');
		expect(issue).toMatchObject({ key: "acceptance.pre_authorized.0", line: 4, suggestion: "docs" });
	});

	test("binary data and invalid UTF-8 are issues, not exceptions", () => {
		expect(firstIssue(new Uint8Array([0x5b, 0x67, 0x61, 0x74, 0x65, 0x5d, 0x0a, 0x00]))).toMatchObject({ line: 2 });
		expect(firstIssue(new Uint8Array([0x23, 0x20, 0xff, 0xfe, 0x0a])).message).toContain("UTF-8");
	});

	test("absurdly deep nesting is refused cleanly rather than overflowing the stack", () => {
		const depth = 100_000;
		const issue = firstIssue(`[jobs]\ntest = ${"[".repeat(depth)}"x"${"]".repeat(depth)}\n`);
		expect(issue.line).toBe(2);
	});
});

/**
 * Behaviour the parser gets wrong today (see the report that came with
 * these tests). Each asserts what a person should be told.
 */
describe("parseConfig: wrong shapes", () => {
	test("a missing required key is reported as missing, not as an unknown key", () => {
		const issue = firstIssue('[scopes.web]\ngate = "bun run check"\n');
		expect(issue).toMatchObject({ key: "scopes.web.paths", line: 1 });
		expect(issue.message).not.toContain("unknown key");
		expect(issue.message).toMatch(/missing|required/);
		expect(issue.suggestion).toBeUndefined();
	});

	test("a job table without `run` says that `run` is missing", () => {
		const issue = firstIssue("[jobs]\ntest = { timeout = 5 }\n");
		expect(issue.key).toBe("jobs.test.run");
		expect(issue.message).not.toContain("unknown key");
	});

	test("a section given a scalar says it must be a table", () => {
		const issue = firstIssue("project = 5\n");
		expect(issue.message).toContain("`project` must be a table, got number");
		expect(issue.suggestion).toBeUndefined();
	});

	test("a section given an array says it must be a table", () => {
		expect(firstIssue("gate = []\n").message).toContain("`gate` must be a table, got array");
		expect(firstIssue('jobs = ["bun test"]\n').message).toContain("`jobs` must be a table, got array");
		expect(firstIssue('[jobs]\ntest = "bun test"\n\n[[gate]]\ntimeout = 10\n')).toMatchObject({ line: 4 });
	});

	test("a NaN timeout is not described as 'must be a number, got number'", () => {
		expect(firstIssue("[gate]\ntimeout = nan\n").message).not.toContain("must be a number, got number");
	});

	test("an infinite timeout is refused (0 is how to say unbounded)", () => {
		expect(firstIssue("[gate]\ntimeout = inf\n").key).toBe("gate.timeout");
	});

	test("a line inside a multi-line string that looks like a table header does not move later keys", () => {
		const source = '[jobs]\ntest = """\n[ -d node_modules ] || bun install\nbun test\n"""\nlint = 5\n';
		expect(firstIssue(source)).toMatchObject({ key: "jobs.lint", line: 6 });
	});

	test("resolveJobs never takes a stage from Object.prototype", () => {
		const config: DiscernConfig = { ...DEFAULTS, jobs: { toString: "make", valueOf: "make", test: "bun test" } };
		expect(resolveJobs(config).map((job) => job.name)).toEqual(["test"]);
		expect(() => jobsByStage(config)).not.toThrow();
	});

	for (const name of ["toString", "constructor", "hasOwnProperty", "prototype"]) {
		test(`a custom job named \`${name}\` without a stage is an issue`, () => {
			expect(firstIssue(`[jobs]\n${name} = "make"\n`)).toMatchObject({ key: `jobs.${name}`, line: 2 });
		});

		test(`a custom job named \`${name}\` with a stage is kept or refused by name, never silently dropped`, () => {
			const outcome = parseConfig(`[jobs.${name}]\nrun = "make"\nstage = "build"\n`);
			if (!outcome.ok) {
				expect(outcome.issues.map((issue) => issue.key)).toContain(`jobs.${name}`);
				return;
			}
			expect(resolveJobs(outcome.config).map((job) => [job.name, job.stage])).toEqual([[name, "build"]]);
			expect(jobsByStage(outcome.config).build).toEqual([name]);
		});
	}
});

describe("resolveJobs and jobsByStage", () => {
	const SOURCE = `
[jobs]
test = { run = "bun test", timeout = 900 }
lint = "bunx biome lint ."
format = "bunx biome format --write ."
typecheck = "bunx tsc --noEmit"
build = "bun run build"
smoke = "./dist/app --version"
noop = { run = ":", stage = "check" }

[jobs.e2e]
stage = "test"
run = ["bun run build", ":", "", "   ", "bun run e2e"]

[gate]
timeout = 300
`;

	test("known names get their stage from their name; declaration order is kept", () => {
		const jobs = resolveJobs(valid(SOURCE));
		expect(jobs.map((job) => [job.name, job.stage])).toEqual([
			["test", "test"],
			["lint", "check"],
			["format", "fix"],
			["typecheck", "check"],
			["build", "build"],
			["smoke", "test"],
			["noop", "check"],
			["e2e", "test"],
		]);
	});

	test("a custom job with a stage is accepted, and a list-valued job keeps its order", () => {
		const e2e = resolveJobs(valid(SOURCE)).find((job) => job.name === "e2e");
		expect(e2e).toMatchObject({ stage: "test", commands: ["bun run build", "bun run e2e"] });
	});

	test('`":"` and empty commands are dropped', () => {
		const jobs = resolveJobs(valid(SOURCE));
		expect(jobs.find((job) => job.name === "noop")?.commands).toEqual([]);
		expect(resolveJobs(valid('[jobs]\nlint = ""\ntest = " : "\n')).map((job) => job.commands)).toEqual([[], []]);
	});

	test("a string job is one command", () => {
		expect(resolveJobs(valid(SOURCE)).find((job) => job.name === "lint")?.commands).toEqual(["bunx biome lint ."]);
	});

	test("a per-job timeout overrides [gate].timeout, including 0 (unbounded)", () => {
		const jobs = resolveJobs(valid(SOURCE));
		expect(jobs.find((job) => job.name === "test")?.timeout).toBe(900);
		expect(jobs.find((job) => job.name === "lint")?.timeout).toBe(300);
		const unbounded = resolveJobs(valid('[gate]\ntimeout = 30\n[jobs]\ntest = { run = "x", timeout = 0 }\n'));
		expect(unbounded[0]?.timeout).toBe(0);
	});

	test("without [gate] the timeout defaults to 600 seconds", () => {
		expect(resolveJobs(valid('[jobs]\ntest = "bun test"\n'))[0]?.timeout).toBe(600);
	});

	test("jobsByStage groups names in stage order fix, build, check, test", () => {
		const grouped = jobsByStage(valid(SOURCE));
		expect(Object.keys(grouped)).toEqual(["fix", "build", "check", "test"]);
		expect(grouped).toEqual({
			fix: ["format"],
			build: ["build"],
			check: ["lint", "typecheck", "noop"],
			test: ["test", "smoke", "e2e"],
		});
	});

	test("an empty config has every stage, each empty", () => {
		expect(jobsByStage(valid(""))).toEqual({ fix: [], build: [], check: [], test: [] });
		expect(resolveJobs(valid(""))).toEqual([]);
	});
});

describe("loadConfig", () => {
	test("no discern.toml → missing, with the path it looked at", async () => {
		const root = await tempDir();
		expect(await loadConfig(root)).toEqual({ state: "missing", path: join(root, CONFIG_FILE) });
	});

	test("a directory named discern.toml → invalid, not a throw", async () => {
		const root = await tempDir();
		await mkdir(join(root, CONFIG_FILE));
		const load = await loadConfig(root);
		expect(load.state).toBe("invalid");
		if (load.state !== "invalid") return;
		expect(load.issues.length).toBeGreaterThanOrEqual(1);
		expect(load.issues[0]?.message).toContain(CONFIG_FILE);
	});

	test("a readable file → valid, with the parsed config", async () => {
		const root = await tempDir();
		await writeFile(join(root, CONFIG_FILE), '[jobs]\ntest = "bun test"\n');
		const load = await loadConfig(root);
		expect(load.state).toBe("valid");
		if (load.state !== "valid") return;
		expect(load.config.jobs).toEqual({ test: "bun test" });
	});

	test("a broken file → invalid, with every issue", async () => {
		const root = await tempDir();
		await writeFile(join(root, CONFIG_FILE), "[gate]\ntimout = 1\nfail_fast = 2\n");
		const load = await loadConfig(root);
		expect(load.state).toBe("invalid");
		if (load.state !== "invalid") return;
		expect(load.issues.map((issue) => issue.line)).toEqual([2, 3]);
	});

	test("a file over the size limit is refused before parsing", async () => {
		const root = await tempDir();
		const line = "# padding\n";
		await writeFile(join(root, CONFIG_FILE), line.repeat(Math.ceil((MAX_CONFIG_BYTES + 1) / line.length)));
		const load = await loadConfig(root);
		expect(load.state).toBe("invalid");
		if (load.state !== "invalid") return;
		expect(load.issues).toHaveLength(1);
		expect(load.issues[0]?.message).toContain("limit");
	});
});
