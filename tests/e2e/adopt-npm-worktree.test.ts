import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, copyFile, mkdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { ensureBinary, onlyJson } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, runGit, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * Adoption end to end on a real npm project, from its lockfile, with nothing
 * installed by hand (issue 22, "Checked by"): `setup --confirmed` proposes
 * `[worktree.setup].ensure = ["npm ci"]`, the adoption is committed, `start`
 * makes a worktree and its `npm ci` installs the project's one dependency
 * there, and `prepare` and `done` pass with the tool from that worktree's
 * own node_modules. The counter-case: without `[worktree.setup]`, a new
 * worktree has no tool (exit 127), and `doctor` and `setup verify` there say
 * it arrives only with the worktree's setup.
 *
 * No network: the dependency is a tarball `npm pack` made, committed in the
 * project (vendor/tool-1.0.0.tgz) and named by a `file:` specifier; npm runs
 * offline, with a cache of its own made for the test.
 */

let binary: string;
let scratch: string;
let tarball: string;
const repos: TestRepo[] = [];

/** The environment of every npm and discern call: offline, a cache of the test's own, no npm_* of an outer `npm run`, no node_modules/.bin on PATH. */
let env: Record<string, string | undefined>;

beforeAll(async () => {
	binary = await ensureBinary();
	scratch = await makeTempDir("discern-adopt-npm-");
	const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
	env = {
		...inherited,
		PATH: (process.env.PATH ?? "")
			.split(delimiter)
			.filter((dir) => !/node_modules[\\/]\.bin/.test(dir))
			.join(delimiter),
		NO_COLOR: "1",
		npm_config_cache: join(scratch, "npm-cache"),
		npm_config_offline: "true",
		npm_config_audit: "false",
		npm_config_fund: "false",
		npm_config_update_notifier: "false",
	};
	// The tool: a package with a bin that says it ran, and with which arguments.
	const source = join(scratch, "tool");
	await mkdir(join(source, "bin"), { recursive: true });
	await writeFile(join(source, "package.json"), `${JSON.stringify({ name: "tool", version: "1.0.0", bin: { tool: "bin/tool.js" } }, null, 2)}\n`);
	await writeFile(join(source, "bin", "tool.js"), '#!/usr/bin/env node\nconsole.log("tool ran: " + process.argv.slice(2).join(" "));\n');
	await chmod(join(source, "bin", "tool.js"), 0o755);
	await run(["npm", "pack", "--pack-destination", scratch], source);
	tarball = join(scratch, "tool-1.0.0.tgz");
});

afterAll(async () => {
	await Promise.all(repos.flatMap((repo) => [repo.remove(), rm(`${repo.root}.worktrees`, { recursive: true, force: true })]));
	await rm(scratch, { recursive: true, force: true });
});

async function run(argv: readonly string[], cwd: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
	const child = Bun.spawn([...argv], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	if (argv[0] !== binary && exitCode !== 0) throw new Error(`${argv.join(" ")} failed (${exitCode}): ${stderr}`);
	return { exitCode, stdout, stderr };
}

/** `discern ARGS --json` in `cwd`: its exit code and its one JSON document, validated against the verb's registry schema. */
async function discern(verb: string, args: readonly string[], cwd: string): Promise<{ exitCode: number; result: Envelope }> {
	const { exitCode, stdout, stderr } = await run([binary, ...verb.split(" "), ...args, "--json"], cwd);
	expect(stderr).toBe("");
	const result = onlyJson(stdout);
	expectValidEnvelope(verb, result);
	return { exitCode, result: result as unknown as Envelope };
}

interface Envelope {
	ok: boolean;
	error?: string;
	// Each verb's own payload; the schema check above has validated it.
	data: Record<string, unknown> & {
		installs?: Array<{ run: string; reason: string }>;
		seeds?: unknown[];
		config_text?: string;
		path?: string;
		proof?: { line: string } | null;
		checks?: Array<{ id: string; state: string; detail: string; fix?: string }>;
		verify?: { programs: Array<{ owner: string; program: string; found: boolean; detail: string; after_setup?: true }> };
	};
	steps?: Array<{ kind: string; label: string; outcome: string; exit_code?: number; output_path?: string }>;
	diagnostics?: Array<{ message: string; output?: string }>;
}

/**
 * The project as its developer committed it: a package.json whose test and
 * lint scripts run the tool, the tool's tarball, and the package-lock.json
 * npm made from them offline. Nothing is installed: no node_modules.
 */
async function npmProject(): Promise<TestRepo> {
	const manifest = {
		name: "greeter",
		version: "1.0.0",
		private: true,
		scripts: { lint: "tool lint index.js", test: "tool test" },
		devDependencies: { tool: "file:vendor/tool-1.0.0.tgz" },
	};
	const repo = await makeRepo({
		commit: false,
		files: {
			"package.json": `${JSON.stringify(manifest, null, 2)}\n`,
			".gitignore": "node_modules/\n",
			"index.js": 'module.exports = (name) => "hello " + name;\n',
		},
	});
	repos.push(repo);
	await mkdir(join(repo.root, "vendor"));
	await copyFile(tarball, join(repo.root, "vendor", "tool-1.0.0.tgz"));
	await run(["npm", "install", "--package-lock-only", "--offline"], repo.root);
	const lock = JSON.parse(await readFile(join(repo.root, "package-lock.json"), "utf8")) as { packages: Record<string, { resolved?: string }> };
	expect(lock.packages["node_modules/tool"]?.resolved).toBe("file:vendor/tool-1.0.0.tgz");
	await repo.commitAll("greeter, with its lockfile");
	expect(await exists(join(repo.root, "node_modules"))).toBe(false);
	return repo;
}

/** `discern setup --confirmed` (no agents: none are wired in a test), then the adoption commit a person makes. */
async function adopt(repo: TestRepo): Promise<Envelope> {
	const { exitCode, result } = await discern("setup", ["--confirmed", "--agents", ""], repo.root);
	expect([exitCode, result.ok]).toEqual([0, true]);
	await repo.commitAll("adopt discern");
	return result;
}

async function start(repo: TestRepo, title: string): Promise<{ path: string; steps: NonNullable<Envelope["steps"]> }> {
	const { exitCode, result } = await discern("start", ["--title", title], repo.root);
	expect([exitCode, result.ok]).toEqual([0, true]);
	const path = result.data.path;
	if (typeof path !== "string") throw new Error(`start named no worktree: ${JSON.stringify(result)}`);
	return { path, steps: result.steps ?? [] };
}

async function exists(path: string): Promise<boolean> {
	return (await stat(path).catch(() => null)) !== null;
}

describe("a real npm project, adopted from its lockfile (dist/discern)", () => {
	test("setup proposes ensure = npm ci; start installs in the new worktree; prepare and done pass there", async () => {
		const repo = await npmProject();
		const setup = await adopt(repo);
		expect(setup.data.installs).toEqual([{ run: "npm ci", reason: "package-lock.json pins the dependencies; a new worktree has none until it installs them" }]);
		// npm ci deletes node_modules before it installs: a seed would be copied only to be thrown away.
		expect(setup.data.seeds).toEqual([]);
		expect(setup.data.config_text).toContain("[worktree.setup]\n# A new worktree has no dependencies: `discern start` runs these in it");
		expect(setup.data.config_text).toContain('ensure = ["npm ci"]');
		expect(await readFile(join(repo.root, "discern.toml"), "utf8")).toBe(setup.data.config_text ?? "");

		const { path: worktree, steps } = await start(repo, "greet loudly");
		expect(steps.map((step) => [step.kind, step.label, step.outcome, step.exit_code])).toEqual([["ensure", "ensure 1", "ok", 0]]);
		// The tool is the worktree's own, from its npm ci; the main checkout still has nothing installed.
		expect(await realpath(join(worktree, "node_modules", ".bin", "tool"))).toBe(join(await realpath(worktree), "node_modules", "tool", "bin", "tool.js"));
		expect(await exists(join(repo.root, "node_modules"))).toBe(false);

		await writeFile(join(worktree, "index.js"), 'module.exports = (name) => "HELLO " + name.toUpperCase();\n');
		await runGit(worktree, ["commit", "-q", "-am", "greet loudly"]);

		const prepare = await discern("prepare", [], worktree);
		expect([prepare.exitCode, prepare.result.ok]).toEqual([0, true]);
		expect(prepare.result.steps?.map((step) => [step.label, step.outcome])).toEqual([["lint", "ok"]]);
		expect(await readFile(prepare.result.steps?.[0]?.output_path ?? "", "utf8")).toContain("tool ran: lint index.js");

		const done = await discern("done", [], worktree);
		expect([done.exitCode, done.result.ok]).toEqual([0, true]);
		expect(done.result.steps?.map((step) => [step.label, step.outcome])).toEqual([
			["lint", "ok"],
			["test", "ok"],
		]);
		expect(done.result.data.proof?.line).toContain("passed lint, test (2 jobs");
		expect(await readFile(done.result.steps?.[1]?.output_path ?? "", "utf8")).toContain("tool ran: test");
		// The gate left the worktree as committed: node_modules is ignored, nothing else changed.
		expect(await runGit(worktree, ["status", "--porcelain"])).toBe("");
	});

	test("without [worktree.setup] a new worktree has no tool (exit 127), and doctor and setup verify there say the worktree's setup brings it", async () => {
		const repo = await npmProject();
		await adopt(repo);
		const config = await readFile(join(repo.root, "discern.toml"), "utf8");
		const without = config.replace(/\[worktree\.setup\]\n(?:[^[\n].*\n)*\n?/, "");
		expect(without).not.toContain("[worktree");
		await writeFile(join(repo.root, "discern.toml"), without);
		await repo.commitAll("no worktree setup");
		// The main checkout is installed, as a developer's is: the worktree is the one without.
		await run(["npm", "ci"], repo.root);
		expect(await exists(join(repo.root, "node_modules", ".bin", "tool"))).toBe(true);

		const { path: worktree, steps } = await start(repo, "greet quietly");
		expect(steps).toEqual([]);
		expect(await exists(join(worktree, "node_modules"))).toBe(false);

		const prepare = await discern("prepare", [], worktree);
		expect([prepare.exitCode, prepare.result.ok, prepare.result.error]).toEqual([1, false, "gate_failed"]);
		expect(prepare.result.steps?.map((step) => [step.label, step.outcome, step.exit_code])).toEqual([["lint", "failed", 127]]);
		expect(prepare.result.diagnostics?.[0]?.output).toContain("tool: not found");

		const doctor = await discern("doctor", [], worktree);
		expect([doctor.exitCode, doctor.result.ok, doctor.result.error]).toEqual([1, false, "checks_failed"]);
		const checks = Object.fromEntries((doctor.result.data.checks ?? []).map((check) => [check.id, check]));
		for (const job of ["lint", "test"]) {
			expect([job, checks[`job:${job}`]?.state]).toEqual([job, "fail"]);
			expect(checks[`job:${job}`]?.detail).toContain("`tool`: not installed in this worktree yet, though the main checkout has it");
			// discern.toml declares no [worktree.setup]: the fix names the install setup proposes, and worktree ensure.
			expect(checks[`job:${job}`]?.fix).toContain('`ensure = ["npm ci"]`');
			expect(checks[`job:${job}`]?.fix).toContain("`discern worktree ensure`");
		}

		const verify = await discern("setup verify", [], worktree);
		expect([verify.exitCode, verify.result.ok]).toEqual([1, false]);
		const tool = verify.result.data.verify?.programs.filter((program) => program.program === "tool");
		expect(tool?.map(({ owner, found, after_setup }) => [owner, found, after_setup])).toEqual([
			["lint", false, true],
			["test", false, true],
		]);
	});
});
