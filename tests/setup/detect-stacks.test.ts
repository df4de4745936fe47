import { afterAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveJobs } from "../../src/config/jobs.ts";
import { parseConfig } from "../../src/config/load.ts";
import { KNOWN_JOB_STAGES } from "../../src/config/schema.ts";
import { tomlString } from "../../src/edit/toml-quote.ts";
import { detectStack, JOB_NAMES, JOB_STAGES, MAX_MANIFEST_BYTES, makeTargets, type PackageManager, type SetupProposal } from "../../src/setup/detect.ts";
import { type RenderedProposal, renderConfig } from "../../src/setup/render-config.ts";

const made: string[] = [];

afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A real temp folder holding `files` (relative path → content), removed after the run. */
async function repo(files: Record<string, string | Uint8Array>): Promise<string> {
	const root = await mkdtemp(join(tmpdir(), "discern-setup-"));
	made.push(root);
	for (const [name, content] of Object.entries(files)) {
		await mkdir(dirname(join(root, name)), { recursive: true });
		await writeFile(join(root, name), content);
	}
	return root;
}

const packageJson = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) =>
	JSON.stringify({ name: "fixture", version: "1.0.0", ...extra, scripts }, null, 2);

/** name → run, in output order: the shape most assertions care about. */
const runs = (proposal: SetupProposal) => proposal.jobs.map((job) => [job.name, job.run] as const);

const NODE_SCRIPTS = { format: "biome format --write .", build: "tsc -b", lint: "biome lint .", typecheck: "tsc --noEmit", test: "vitest run" };

describe("node: the lockfile decides the package manager", () => {
	const cases: Array<{ lockfile: string | null; manager: PackageManager; test: string; lint: string }> = [
		{ lockfile: "bun.lock", manager: "bun", test: "bun run test", lint: "bun run lint" },
		{ lockfile: "bun.lockb", manager: "bun", test: "bun run test", lint: "bun run lint" },
		{ lockfile: "pnpm-lock.yaml", manager: "pnpm", test: "pnpm run test", lint: "pnpm run lint" },
		{ lockfile: "yarn.lock", manager: "yarn", test: "yarn run test", lint: "yarn run lint" },
		{ lockfile: "package-lock.json", manager: "npm", test: "npm test", lint: "npm run lint" },
		{ lockfile: null, manager: "npm", test: "npm test", lint: "npm run lint" },
	];
	for (const { lockfile, manager, test: testRun, lint } of cases) {
		test(`${lockfile ?? "no lockfile"} → ${manager}`, async () => {
			const root = await repo({ "package.json": packageJson(NODE_SCRIPTS), ...(lockfile ? { [lockfile]: "" } : {}) });
			const proposal = await detectStack(root);
			expect(proposal.stacks).toEqual([{ kind: "node", evidence: "package.json", manager }]);
			expect(proposal.jobs.find((job) => job.name === "test")?.run).toBe(testRun);
			expect(proposal.jobs.find((job) => job.name === "lint")?.run).toBe(lint);
		});
	}

	test("every recognized script becomes a job, in stage order, with its reason", async () => {
		const root = await repo({ "package.json": packageJson(NODE_SCRIPTS), "pnpm-lock.yaml": "lockfileVersion: 9" });
		const { jobs } = await detectStack(root);
		expect(jobs).toEqual([
			{ name: "format", stage: "fix", run: "pnpm run format", reason: 'package.json has a "format" script' },
			{ name: "build", stage: "build", run: "pnpm run build", reason: 'package.json has a "build" script' },
			{ name: "lint", stage: "check", run: "pnpm run lint", reason: 'package.json has a "lint" script' },
			{ name: "typecheck", stage: "check", run: "pnpm run typecheck", reason: 'package.json has a "typecheck" script' },
			{ name: "test", stage: "test", run: "pnpm run test", reason: 'package.json has a "test" script' },
		]);
	});

	test("alternative script names: fmt, type-check, tsc, check-types, test:types", async () => {
		for (const [script, name] of [
			["fmt", "format"],
			["type-check", "typecheck"],
			["tsc", "typecheck"],
			["check-types", "typecheck"],
			["test:types", "typecheck"],
		] as const) {
			const root = await repo({ "package.json": packageJson({ [script]: "x" }), "bun.lock": "{}" });
			expect(runs(await detectStack(root))).toEqual([[name, `bun run ${script}`]]);
		}
	});

	test("unrelated scripts, empty scripts and npm's failing placeholder test propose nothing", async () => {
		const root = await repo({
			"package.json": packageJson({ dev: "vite", start: "node .", lint: "  ", test: 'echo "Error: no test specified" && exit 1' }),
		});
		const proposal = await detectStack(root);
		expect(proposal.stacks).toEqual([{ kind: "node", evidence: "package.json", manager: "npm" }]);
		expect(proposal.jobs).toEqual([]);
	});

	test("without a lockfile, the packageManager field names the manager", async () => {
		const root = await repo({ "package.json": packageJson({ test: "vitest" }, { packageManager: "pnpm@9.1.0" }) });
		const proposal = await detectStack(root);
		expect(proposal.stacks[0]?.manager).toBe("pnpm");
		expect(runs(proposal)).toEqual([["test", "pnpm run test"]]);
	});

	test("a lockfile outranks the packageManager field", async () => {
		const root = await repo({ "package.json": packageJson({ test: "vitest" }, { packageManager: "pnpm@9.1.0" }), "yarn.lock": "" });
		expect((await detectStack(root)).stacks[0]?.manager).toBe("yarn");
	});

	for (const [label, content] of [
		["malformed JSON", '{ "scripts": { "test": "jest", }'],
		["a JSON array", '["test"]'],
		["JSON null", "null"],
		["scripts that are not an object", '{ "scripts": "npm test" }'],
		["an empty file", ""],
	] as const) {
		test(`package.json with ${label} still means node, without jobs`, async () => {
			const root = await repo({ "package.json": content, "bun.lock": "" });
			expect(await detectStack(root)).toEqual({
				projectName: null,
				stacks: [{ kind: "node", evidence: "package.json", manager: "bun" }],
				jobs: [],
				scopes: [],
				ignores: [],
				installs: [],
				seeds: [],
			});
		});
	}

	test("a byte-order mark does not hide the scripts", async () => {
		const root = await repo({ "package.json": `\uFEFF${packageJson({ test: "jest" })}` });
		expect(runs(await detectStack(root))).toEqual([["test", "npm test"]]);
	});

	test("a package.json over 1 MiB is detected but its scripts are ignored", async () => {
		const padding = "x".repeat(MAX_MANIFEST_BYTES);
		const root = await repo({ "package.json": packageJson({ test: "jest", lint: "eslint ." }, { description: padding }) });
		expect(await detectStack(root)).toEqual({
			projectName: null,
			stacks: [{ kind: "node", evidence: "package.json", manager: "npm" }],
			jobs: [],
			scopes: [],
			ignores: [],
			installs: [],
			seeds: [],
		});
	});

	test("a folder named package.json is not a manifest", async () => {
		const root = await repo({});
		await mkdir(join(root, "package.json"));
		expect(await detectStack(root)).toEqual({ projectName: null, stacks: [], jobs: [], scopes: [], ignores: [], installs: [], seeds: [] });
	});
});

describe("node: the test job without a test script", () => {
	const testRun = async (files: Record<string, string>) => (await detectStack(await repo(files))).jobs.find((job) => job.name === "test") ?? null;
	const TEST_FILE = 'import test from "node:test";\n';

	test("Mocha, by its dependency or its .mocharc, runs through the project's manager", async () => {
		expect(await testRun({ "package.json": packageJson({}, { devDependencies: { mocha: "^10" } }), "pnpm-lock.yaml": "", "test/a.spec.js": "" })).toMatchObject(
			{ run: "pnpm exec mocha", reason: 'package.json depends on "mocha"' },
		);
		expect(await testRun({ "package.json": packageJson({}), ".mocharc.yml": "spec: spec/**/*.js\n", "spec/a.js": "" })).toMatchObject({
			run: "npx mocha",
			reason: ".mocharc.yml configures Mocha",
		});
	});

	test("a Bun project's test files mean `bun test`, wherever they are; a spec file counts", async () => {
		expect(await testRun({ "package.json": packageJson({}), "bun.lockb": "", "packages/core/lib/math.spec.tsx": "" })).toMatchObject({
			run: "bun test",
			reason: "packages/core/lib/math.spec.tsx is a test file bun test finds, and bun.lockb makes this a Bun project",
		});
		expect(await testRun({ "package.json": packageJson({}, { packageManager: "bun@1.2.0" }), "src/a_test.ts": "" })).toMatchObject({
			reason: 'src/a_test.ts is a test file bun test finds, and the "packageManager" field of package.json makes this a Bun project',
		});
	});

	test("node --test: the files it finds by default, outside a test/ folder too", async () => {
		for (const file of ["test.js", "test-math.cjs", "src/math.test.mjs", "lib/deep/math-test.js", "math_test.js", "test/unit/helpers.mjs"]) {
			expect((await testRun({ "package.json": packageJson({}), [file]: TEST_FILE }))?.run).toBe("node --test");
		}
	});

	test("files node --test does not run, and folders holding no tests of the project, propose nothing", async () => {
		for (const file of [
			"tests/math.js",
			"src/math.spec.js",
			"test.ts",
			"node_modules/x/test/a.js",
			"fixtures/a.test.js",
			".cache/a.test.js",
			"a/b/c/d/e/f.test.js",
		]) {
			expect(await testRun({ "package.json": packageJson({}), [file]: TEST_FILE })).toBeNull();
		}
	});

	test("a project depending on a runner setup has no command for gets no node --test", async () => {
		expect(await testRun({ "package.json": packageJson({}, { devDependencies: { ava: "^6" } }), "test.js": TEST_FILE })).toBeNull();
		// A Bun project whose test files are not Bun's kind (test/add.js) still gets node's runner.
		expect(await testRun({ "package.json": packageJson({}), "bun.lock": "", "test/add.js": TEST_FILE })).toMatchObject({ run: "node --test" });
	});
});

describe("rust and go", () => {
	test("Cargo.toml proposes cargo fmt, clippy and test", async () => {
		const root = await repo({ "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\n' });
		const proposal = await detectStack(root);
		expect(proposal.stacks).toEqual([{ kind: "rust", evidence: "Cargo.toml" }]);
		expect(proposal.jobs.map((job) => [job.name, job.stage, job.run])).toEqual([
			["format", "fix", "cargo fmt"],
			["lint", "check", "cargo clippy -- -D warnings"],
			["test", "test", "cargo test"],
		]);
	});

	test("go.mod proposes gofmt -w, go vet and go test", async () => {
		const root = await repo({ "go.mod": "module example.com/demo\n\ngo 1.22\n" });
		const proposal = await detectStack(root);
		expect(proposal.stacks).toEqual([{ kind: "go", evidence: "go.mod" }]);
		expect(runs(proposal)).toEqual([
			["format", "gofmt -w ."],
			["lint", "go vet ./..."],
			["test", "go test ./..."],
		]);
	});

	/** The proposed format job run by `sh` (dash on Debian), with a stand-in gofmt on PATH (or none). */
	async function formatJob(gofmt: string | null): Promise<{ exitCode: number; stdout: string }> {
		const root = await repo({ "go.mod": "module example.com/demo\n" });
		const run = (await detectStack(root)).jobs.find((job) => job.name === "format")?.run ?? "";
		const bin = join(root, "bin");
		await mkdir(bin);
		if (gofmt !== null) {
			await writeFile(join(bin, "gofmt"), `#!/bin/sh\n${gofmt}\n`);
			await chmod(join(bin, "gofmt"), 0o755);
		}
		const child = Bun.spawn(["/bin/sh", "-c", run], { cwd: root, env: { PATH: bin }, stdout: "pipe", stderr: "pipe" });
		const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		return { exitCode, stdout };
	}

	test("the gofmt job writes: it fails when gofmt is missing or fails, and passes when gofmt formats", async () => {
		expect((await formatJob(null)).exitCode).not.toBe(0);
		expect((await formatJob("echo 'x.go:1:1: expected package' >&2; exit 2")).exitCode).not.toBe(0);
		expect(await formatJob('test "$1" = -w && test "$2" = . || exit 3')).toEqual({ exitCode: 0, stdout: "" });
	});
});

describe("python", () => {
	const configured = '[project]\nname = "demo"\n\n[tool.ruff]\nline-length = 100\n\n[tool.mypy]\nstrict = true\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';

	const managers: Array<{ lockfile: string | null; manager: PackageManager; prefix: string }> = [
		{ lockfile: "uv.lock", manager: "uv", prefix: "uv run " },
		{ lockfile: "poetry.lock", manager: "poetry", prefix: "poetry run " },
		{ lockfile: null, manager: "pip", prefix: "" },
	];
	for (const { lockfile, manager, prefix } of managers) {
		test(`${lockfile ?? "no lockfile"} → ${manager}; ruff and mypy from [tool.*] tables`, async () => {
			const root = await repo({ "pyproject.toml": configured, ...(lockfile ? { [lockfile]: "" } : {}) });
			const proposal = await detectStack(root);
			expect(proposal.stacks).toEqual([{ kind: "python", evidence: "pyproject.toml", manager }]);
			expect(runs(proposal)).toEqual([
				["format", `${prefix}ruff format .`],
				["lint", `${prefix}ruff check .`],
				["typecheck", `${prefix}mypy .`],
				["test", `${prefix}pytest`],
			]);
			expect(proposal.jobs.find((job) => job.name === "lint")?.reason).toBe("pyproject.toml has a [tool.ruff] table");
		});
	}

	test("[tool.black] proposes black; without a sign of pytest no test job is proposed", async () => {
		const root = await repo({ "pyproject.toml": '[project]\nname = "demo"\n\n[tool.black]\nline-length = 88\n' });
		expect(runs(await detectStack(root))).toEqual([["format", "black ."]]);
	});

	test("a tests/ folder means pytest", async () => {
		const root = await repo({ "pyproject.toml": '[project]\nname = "demo"\n' });
		await mkdir(join(root, "tests"));
		expect(runs(await detectStack(root))).toEqual([["test", "pytest"]]);
	});

	test("[tool.ruff.lint] alone counts as ruff being configured", async () => {
		const root = await repo({ "pyproject.toml": '[tool.ruff.lint]\nselect = ["E"]\n', "uv.lock": "" });
		expect(runs(await detectStack(root)).map(([name]) => name)).toEqual(["format", "lint"]);
	});

	test("a pyproject.toml the TOML parser rejects still gets its [tool.ruff] header seen", async () => {
		const root = await repo({ "pyproject.toml": '[project\nname = "demo"\n[tool.ruff]\nline-length = 100\n' });
		expect(runs(await detectStack(root)).map(([name]) => name)).toEqual(["format", "lint"]);
	});

	test("setup.cfg alone is a python project; its [mypy] section proposes mypy; [metadata] names it", async () => {
		const root = await repo({ "setup.cfg": "[metadata]\nname = demo\n\n[mypy]\nstrict = True\n" });
		const proposal = await detectStack(root);
		expect(proposal.stacks).toEqual([{ kind: "python", evidence: "setup.cfg", manager: "pip" }]);
		expect(runs(proposal)).toEqual([["typecheck", "mypy ."]]);
		expect(proposal.projectName).toBe("demo");
	});

	test("setup.cfg's name: `key: value` too, only in [metadata], never a continued value; pyproject's name wins", async () => {
		const name = async (files: Record<string, string>) => (await detectStack(await repo(files))).projectName;
		expect(await name({ "setup.cfg": "[options]\nname = wrong\n[metadata]\n# name = commented\nName: right\n" })).toBe("right");
		expect(await name({ "setup.cfg": "[metadata]\nname =\n    continued\n" })).toBeNull();
		expect(await name({ "setup.cfg": "[metadata]\nname = legacy\n", "pyproject.toml": '[project]\nname = "modern"\n' })).toBe("modern");
	});

	test("Black and Ruff both configured: [tool.black] means Black formats, unless [tool.ruff.format] configures Ruff's formatter", async () => {
		const ruffLint = "[tool.black]\nline-length = 88\n[tool.ruff]\nline-length = 88\n";
		expect(runs(await detectStack(await repo({ "pyproject.toml": ruffLint })))).toEqual([
			["format", "black ."],
			["lint", "ruff check ."],
		]);
		expect(runs(await detectStack(await repo({ "pyproject.toml": `${ruffLint}[tool.ruff.format]\nquote-style = "single"\n` })))).toEqual([
			["format", "ruff format . && black ."],
			["lint", "ruff check ."],
		]);
		// Both only as dependencies: nothing says which formats, so both checks stay.
		expect(runs(await detectStack(await repo({ "requirements.txt": "black\nruff\n" })))).toEqual([
			["format", "ruff format . && black ."],
			["lint", "ruff check ."],
		]);
	});

	test("Hatch environments' dependencies are the project's tools; another environment's run in it", async () => {
		const proposal = await detectStack(
			await repo({
				"hatch.toml": '[envs.default]\nextra-dependencies = ["pytest"]\n[envs.types]\ndependencies = ["mypy"]\n["envs.bad name"]\ndependencies = ["ruff"]\n',
				"pyproject.toml": '[project]\nname = "demo"\n',
			}),
		);
		expect(proposal.jobs.map((job) => [job.name, job.run, job.reason])).toEqual([
			["typecheck", "hatch run types:mypy .", 'hatch.toml lists mypy in Hatch\'s "types" environment'],
			["test", "hatch run pytest", "hatch.toml lists pytest in Hatch's default environment"],
		]);
		// A lockfile of another runner decides: Hatch's environments are not where its tools are.
		const uv = await detectStack(await repo({ "uv.lock": "", "pyproject.toml": '[tool.hatch.envs.lint]\ndependencies = ["ruff"]\n' }));
		expect(uv.jobs).toEqual([]);
	});
});

describe("make", () => {
	const makefile = [
		"GO ?= go",
		"VERSION := 1.2.3",
		"FLAGS ::= -v",
		".PHONY: build test lint fmt",
		"",
		"# test: a comment, not a rule",
		"build: deps",
		"\t$(GO) build ./...",
		"",
		"test lint: build",
		"\techo target: not-a-target",
		"",
		"fmt::",
		"\tgofmt -w .",
		"",
		"check:",
		"\t./scripts/check.sh",
		"",
	].join("\n");

	test("rule lines are targets; assignments, comments and recipes are not", () => {
		expect([...makeTargets(makefile)].sort()).toEqual([".PHONY", "build", "check", "fmt", "lint", "test"]);
		expect(makeTargets("a:=b\nb::=c\nc:::=d\nwin: \r\n")).toEqual(new Set(["win"]));
	});

	test("a Makefile proposes `make <target>` for the known targets", async () => {
		const root = await repo({ Makefile: makefile });
		const proposal = await detectStack(root);
		expect(proposal.stacks).toEqual([{ kind: "make", evidence: "Makefile" }]);
		expect(proposal.jobs).toEqual([
			{ name: "format", stage: "fix", run: "make fmt", reason: 'Makefile has a "fmt" target' },
			{ name: "build", stage: "build", run: "make build", reason: 'Makefile has a "build" target' },
			{ name: "lint", stage: "check", run: "make lint", reason: 'Makefile has a "lint" target' },
			{ name: "test", stage: "test", run: "make test", reason: 'Makefile has a "test" target' },
		]);
	});

	test("`check` runs the tests when there is no test target (GNU conventions); the real file name is the evidence", async () => {
		const root = await repo({ makefile: "check:\n\t./check.sh\nformat:\n\t./fmt.sh\n" });
		const proposal = await detectStack(root);
		expect(proposal.stacks).toEqual([{ kind: "make", evidence: "makefile" }]);
		expect(runs(proposal)).toEqual([
			["format", "make format"],
			["test", "make check"],
		]);
	});

	test("a Makefile without known targets is detected with no jobs", async () => {
		const root = await repo({ Makefile: "all:\n\techo hi\n" });
		expect(await detectStack(root)).toEqual({
			projectName: null,
			stacks: [{ kind: "make", evidence: "Makefile" }],
			jobs: [],
			scopes: [],
			ignores: [],
			installs: [],
			seeds: [],
		});
	});
});

describe("several stacks", () => {
	test("polyglot: the first stack with jobs gets the plain names, the others their kind; make fills the gaps", async () => {
		const root = await repo({
			"package.json": packageJson({ lint: "eslint .", test: "vitest run" }),
			"bun.lock": "{}",
			"Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
			"go.mod": "module example.com/x\n",
			"pyproject.toml": '[project]\nname = "x"\n[tool.mypy]\nstrict = true\n',
			Makefile: "test:\n\tmake -C all test\ntypecheck:\n\t./tc.sh\n",
		});
		const proposal = await detectStack(root);
		expect(proposal.stacks.map((stack) => stack.kind)).toEqual(["node", "rust", "go", "python", "make"]);
		expect(proposal.projectName).toBe("fixture");
		expect(proposal.jobs.map((job) => [job.name, job.stage, job.run])).toEqual([
			["format_rust", "fix", "cargo fmt --all"],
			["format_go", "fix", "gofmt -w ."],
			["lint", "check", "bun run lint"],
			["lint_rust", "check", "cargo clippy --workspace -- -D warnings"],
			["lint_go", "check", "go vet ./..."],
			["typecheck_python", "check", "mypy ."],
			["typecheck", "check", "make typecheck"],
			["test", "test", "bun run test"],
			["test_rust", "test", "cargo test --workspace"],
			["test_go", "test", "go test ./..."],
		]);
	});

	test("a Makefile target wins over nothing", async () => {
		const root = await repo({
			"package.json": packageJson({ test: "jest" }),
			Makefile: "lint:\n\teslint .\ntest:\n\tjest --ci\n",
		});
		expect(runs(await detectStack(root))).toEqual([
			["lint", "make lint"],
			["test", "npm test"],
		]);
	});
});

test("an empty folder has no stacks and no jobs", async () => {
	expect(await detectStack(await repo({}))).toEqual({ projectName: null, stacks: [], jobs: [], scopes: [], ignores: [], installs: [], seeds: [] });
});

test("the proposed job names agree with the config's known job stages", () => {
	for (const name of JOB_NAMES) expect(JOB_STAGES[name]).toBe(KNOWN_JOB_STAGES[name] as (typeof JOB_STAGES)[typeof name]);
});

describe("renderConfig round-trips through parseConfig", () => {
	function parsed(text: string) {
		const outcome = parseConfig(text);
		if (!outcome.ok) throw new Error(`rendered config was refused:\n${JSON.stringify(outcome.issues, null, 2)}\n---\n${text}`);
		return outcome.config;
	}

	const fixtures: Array<{ label: string; files: Record<string, string> }> = [
		{ label: "node", files: { "package.json": packageJson(NODE_SCRIPTS), "bun.lock": "{}" } },
		{ label: "rust", files: { "Cargo.toml": "[package]\nname = 'x'\n" } },
		{ label: "python with uv", files: { "pyproject.toml": "[tool.ruff]\n[tool.mypy]\n", "uv.lock": "" } },
		{ label: "make", files: { Makefile: "fmt:\n\tx\nbuild:\n\tx\ncheck:\n\tx\ntest:\n\tx\n" } },
		{
			label: "polyglot",
			files: { "package.json": packageJson({ test: "jest" }), "go.mod": "module x\n", Makefile: "lint:\n\tx\n" },
		},
	];
	for (const { label, files } of fixtures) {
		test(`${label}: every detected job comes back with its stage and command`, async () => {
			const proposal = await detectStack(await repo(files));
			expect(proposal.jobs.length).toBeGreaterThan(0);
			const text = renderConfig(proposal, { projectName: "demo", trunk: "main" });
			const config = parsed(text);
			expect(resolveJobs(config).map((job) => [job.name, job.stage, job.commands])).toEqual(proposal.jobs.map((job) => [job.name, job.stage, [job.run]]));
			for (const job of proposal.jobs) expect(text).toContain(`# ${job.reason}`);
			expect(config.project.name).toBe("demo");
			expect(config.repository.trunk).toBe("main");
			expect(config.gate).toEqual({ fail_fast: true, timeout: 600 });
			expect(config.map.dir).toBe("docs/map/");
		});
	}

	test("the header points at `discern docs config`", () => {
		const text = renderConfig({ stacks: [], jobs: [] }, { projectName: "demo", trunk: "main" });
		expect(text.startsWith("# discern.toml")).toBe(true);
		expect(text).toContain("`discern docs config`");
	});

	test("no jobs: a commented example, a note that the gate has nothing to run, and a valid file", async () => {
		const proposal = await detectStack(await repo({}));
		const text = renderConfig(proposal, { projectName: "empty", trunk: null });
		expect(text).toContain('# test = "…"');
		expect(text).toContain("the gate has nothing to run yet");
		const config = parsed(text);
		expect(config.jobs).toEqual({});
		expect(resolveJobs(config)).toEqual([]);
		expect(config.repository.trunk).toBeUndefined();
	});

	test("names, trunks and commands with quotes, backslashes and control characters survive", () => {
		const name = 'the "shop" \\ back\tslash\nnew line \u0001 \u007f ünï';
		const run = 'echo "a\\b" && printf \'%s\\n\' "$HOME"';
		const proposal: RenderedProposal = {
			stacks: [{ kind: "node", evidence: "package.json", manager: "npm" }],
			jobs: [{ name: "test", stage: "test", run, reason: "a reason\nwith a newline that must not escape its comment" }],
		};
		const config = parsed(renderConfig(proposal, { projectName: name, trunk: 'release/"v2"' }));
		expect(config.project.name).toBe(name);
		expect(config.repository.trunk).toBe('release/"v2"');
		expect(resolveJobs(config)).toEqual([{ name: "test", stage: "test", commands: [run], timeout: 600 }]);
	});

	test("a job whose name does not imply its stage is written with an explicit stage", () => {
		const proposal: RenderedProposal = { stacks: [], jobs: [{ name: "e2e", stage: "test", run: "bun run e2e", reason: "custom" }] };
		const text = renderConfig(proposal, { projectName: "demo", trunk: null });
		expect(text).toContain('e2e = { run = "bun run e2e", stage = "test" }');
		expect(resolveJobs(parsed(text))).toEqual([{ name: "e2e", stage: "test", commands: ["bun run e2e"], timeout: 600 }]);
	});

	test("an empty project name is left for discern to derive", () => {
		const config = parsed(renderConfig({ stacks: [], jobs: [] }, { projectName: "  ", trunk: "" }));
		expect(config.project.name).toBeUndefined();
		expect(config.repository.trunk).toBeUndefined();
	});

	test("tomlString escapes what TOML requires", () => {
		expect(tomlString('a"b\\c')).toBe('"a\\"b\\\\c"');
		expect(tomlString("\u0000\u001f\u007f")).toBe('"\\u0000\\u001F\\u007F"');
	});
});
