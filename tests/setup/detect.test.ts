import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { resolveJobs } from "../../src/config/jobs.ts";
import { parseConfig } from "../../src/config/load.ts";
import { detectStack, type SetupProposal } from "../../src/setup/detect.ts";
import { solutionReferences } from "../../src/setup/node.ts";
import { renderConfig } from "../../src/setup/render-config.ts";

/**
 * The fixture corpus: one small repository per stack under
 * tests/fixtures/stacks/, read in place (detection only reads files), with
 * the exact proposal a developer of that stack would write: project name,
 * stacks, jobs (name, command, the file that led to it) and scopes.
 */
const FIXTURES = join(import.meta.dir, "../fixtures/stacks");

/** Go's format job: gofmt's failure and its listing both fail it, and the listing is printed. */

type Expected = {
	projectName: string | null;
	stacks: Array<[string, string, string | null]>;
	jobs: Array<[string, string, string]>;
	scopes: Array<{ name: string; paths: string[]; gate?: string; reason: string }>;
	/** Lines for the root .gitignore: folders the jobs write (before git is asked which are ignored already). */
	ignores: Array<[string, string]>;
};

const EXPECTED: Record<string, Expected> = {
	"bun-biome": {
		projectName: "bun-tool",
		stacks: [["node", "package.json", "bun"]],
		jobs: [
			["format", "bunx biome format --write .", "biome.json configures Biome"],
			["lint", "bunx biome lint .", "biome.json configures Biome"],
			["typecheck", "bun run typecheck", 'package.json has a "typecheck" script'],
			["test", "bun test", 'package.json depends on "@types/bun"'],
		],
		scopes: [],
		ignores: [["node_modules/", "bun installs the dependencies the jobs run there"]],
	},
	// No @types/bun, yet bun.lock makes it a Bun project and Bun's runner finds src/index.test.ts.
	"bun-tests-without-types": {
		projectName: "bun-api",
		stacks: [["node", "package.json", "bun"]],
		jobs: [["test", "bun test", "src/index.test.ts is a test file bun test finds, and bun.lock makes this a Bun project"]],
		scopes: [],
		ignores: [["node_modules/", "bun installs the dependencies the jobs run there"]],
	},
	// Playwright's specs are its own: neither bun test nor node --test is guessed for them.
	"bun-playwright": {
		projectName: "bun-e2e",
		stacks: [["node", "package.json", "bun"]],
		jobs: [],
		scopes: [],
		ignores: [],
	},
	empty: {
		projectName: null,
		stacks: [],
		jobs: [],
		scopes: [],
		ignores: [],
	},
	"go-golangci": {
		projectName: "gateway",
		stacks: [["go", "go.mod", null]],
		jobs: [
			["format", "gofmt -w .", "go.mod marks a Go module; gofmt formats it (the fix stage writes)"],
			["lint", "golangci-lint run", ".golangci.yml configures golangci-lint (it runs go vet too)"],
			["test", "go test ./...", "go.mod marks a Go module"],
		],
		scopes: [],
		ignores: [],
	},
	"go-workspace": {
		projectName: null,
		stacks: [["go", "go.work", null]],
		jobs: [
			["format", "gofmt -w .", "go.work declares a Go workspace; gofmt formats it (the fix stage writes)"],
			["lint", "go vet ./api/... ./worker/...", "go.work declares a Go workspace"],
			["test", "go test ./api/... ./worker/...", "go.work declares a Go workspace"],
		],
		scopes: [
			{ name: "api", paths: ["api/**"], reason: "go.work uses it" },
			{ name: "worker", paths: ["worker/**"], reason: "go.work uses it" },
		],
		ignores: [],
	},
	"make-check": {
		projectName: null,
		stacks: [["make", "Makefile", null]],
		jobs: [
			["format", "make fmt", 'Makefile has a "fmt" target'],
			["build", "make build", 'Makefile has a "build" target'],
			["test", "make check", 'Makefile has a "check" target (GNU\'s name for running the tests)'],
		],
		scopes: [],
		ignores: [],
	},
	"node-and-python": {
		projectName: "storefront",
		stacks: [
			["node", "package.json", "npm"],
			["python", "service/pyproject.toml", "uv"],
		],
		jobs: [
			["format_service", "cd service && uv run ruff format .", "service/pyproject.toml lists ruff"],
			["build", "npm run build", 'package.json has a "build" script'],
			["lint", "npm run lint", 'package.json has a "lint" script'],
			["lint_service", "cd service && uv run ruff check .", "service/pyproject.toml lists ruff"],
			["test", "npm test", 'package.json has a "test" script'],
			["test_service", "cd service && uv run pytest", "service/pyproject.toml lists pytest"],
		],
		scopes: [{ name: "service", paths: ["service/**"], reason: "service/pyproject.toml is a project of its own; its jobs are named `…_service`" }],
		ignores: [
			["node_modules/", "npm installs the dependencies the jobs run there"],
			[".pytest_cache/", "pytest keeps its cache there (job `test_service`)"],
			[".ruff_cache/", "Ruff keeps its cache there (jobs `format_service`, `lint_service`)"],
			["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test_service`)"],
			[".venv/", "`uv run` creates the project's environment there (jobs `format_service`, `lint_service`, `test_service`)"],
		],
	},
	"node-builtin-oxlint": {
		projectName: "tiny-lib",
		stacks: [["node", "package.json", "npm"]],
		jobs: [
			["format", "npx dprint fmt", "dprint.json configures dprint"],
			["lint", "npx oxlint", 'package.json depends on "oxlint"'],
			["test", "node --test", "test/add.js is a file node --test finds, and no test runner dependency: node's own runner"],
		],
		scopes: [],
		ignores: [["node_modules/", "npm installs the dependencies the jobs run there"]],
	},
	"node-mocha": {
		projectName: "legacy-lib",
		stacks: [["node", "package.json", "npm"]],
		jobs: [["test", "npx mocha", 'package.json depends on "mocha"']],
		scopes: [],
		ignores: [["node_modules/", "npm installs the dependencies the jobs run there"]],
	},
	"node-pnpm-eslint-vitest": {
		projectName: "shop-web",
		stacks: [["node", "package.json", "pnpm"]],
		jobs: [
			["format", "pnpm exec prettier --write .", 'package.json depends on "prettier"'],
			["build", "pnpm run build", 'package.json has a "build" script'],
			["lint", "pnpm exec eslint .", "eslint.config.js configures ESLint"],
			["typecheck", "pnpm exec tsc --noEmit", 'tsconfig.json and the "typescript" dependency'],
			["test", "pnpm exec vitest run", 'package.json depends on "vitest"'],
		],
		scopes: [],
		ignores: [["node_modules/", "pnpm installs the dependencies the jobs run there"]],
	},
	// `npm create vite -- --template react-ts`: its tsconfig.json only references the projects that hold the files,
	// so `tsc --noEmit` would check nothing and pass; `tsc -b` checks them (the template's own build runs it).
	// node --test finds `*.test.mjs` anywhere, not only in a test/ folder.
	"node-test-files-mjs": {
		projectName: "slugify-lite",
		stacks: [["node", "package.json", "npm"]],
		jobs: [["test", "node --test", "tests/slug.test.mjs is a file node --test finds, and no test runner dependency: node's own runner"]],
		scopes: [],
		ignores: [["node_modules/", "npm installs the dependencies the jobs run there"]],
	},
	"node-vite-tsc-references": {
		projectName: "vite-react-typescript-starter",
		stacks: [["node", "package.json", "npm"]],
		jobs: [
			["build", "npm run build", 'package.json has a "build" script'],
			["lint", "npm run lint", 'package.json has a "lint" script'],
			["typecheck", "npx tsc -b", "tsconfig.json has no files of its own, only references (tsconfig.app.json, tsconfig.node.json): `tsc -b` checks them"],
		],
		scopes: [],
		ignores: [["node_modules/", "npm installs the dependencies the jobs run there"]],
	},
	"npm-workspaces": {
		projectName: "acme-monorepo",
		stacks: [["node", "package.json", "npm"]],
		jobs: [["test", "npm test", 'package.json has a "test" script']],
		scopes: [
			{
				name: "api",
				paths: ["packages/api/**"],
				gate: "npm run lint -w packages/api && npm test -w packages/api",
				reason: 'package.json lists it as a workspace package; its gate runs its "lint", "test" scripts',
			},
			{ name: "ui", paths: ["packages/ui/**"], reason: "package.json lists it as a workspace package" },
		],
		ignores: [["node_modules/", "npm installs the dependencies the jobs run there"]],
	},
	"pnpm-workspace": {
		projectName: "acme",
		stacks: [["node", "package.json", "pnpm"]],
		jobs: [
			["format", "pnpm exec biome format --write .", "biome.json configures Biome"],
			["lint", "pnpm exec biome lint .", "biome.json configures Biome"],
		],
		scopes: [
			{
				name: "web",
				paths: ["apps/web/**"],
				gate: "pnpm --filter @acme/web run check",
				reason: 'pnpm-workspace.yaml lists it as a workspace package; its gate runs its "check" script',
			},
			{
				name: "lib",
				paths: ["packages/lib/**"],
				gate: "pnpm --filter @acme/lib run lint && pnpm --filter @acme/lib run test",
				reason: 'pnpm-workspace.yaml lists it as a workspace package; its gate runs its "lint", "test" scripts',
			},
		],
		ignores: [["node_modules/", "pnpm installs the dependencies the jobs run there"]],
	},
	// [tool.black] means Black formats; Ruff, configured for linting beside it, then only lints.
	"python-black-ruff-lint": {
		projectName: "ledger",
		stacks: [["python", "pyproject.toml", "uv"]],
		jobs: [
			["format", "uv run black .", "pyproject.toml has a [tool.black] table: Black formats, Ruff only lints"],
			["lint", "uv run ruff check .", "pyproject.toml has a [tool.ruff] table"],
			["test", "uv run pytest", "pyproject.toml lists pytest"],
		],
		scopes: [],
		ignores: [
			[".pytest_cache/", "pytest keeps its cache there (job `test`)"],
			[".ruff_cache/", "Ruff keeps its cache there (job `lint`)"],
			["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test`)"],
			[".venv/", "`uv run` creates the project's environment there (jobs `format`, `lint`, `test`)"],
		],
	},
	// Tools installed by Hatch environments run in them: the default one plainly, another by its name.
	"python-hatch-envs": {
		projectName: "sensors",
		stacks: [["python", "pyproject.toml", "hatch"]],
		jobs: [
			["format", "hatch run lint:ruff format .", 'pyproject.toml lists ruff in Hatch\'s "lint" environment'],
			["lint", "hatch run lint:ruff check .", 'pyproject.toml lists ruff in Hatch\'s "lint" environment'],
			["typecheck", "hatch run mypy .", "pyproject.toml lists mypy in Hatch's default environment"],
			["test", "hatch run pytest", "pyproject.toml lists pytest in Hatch's default environment"],
		],
		scopes: [],
		ignores: [
			[".pytest_cache/", "pytest keeps its cache there (job `test`)"],
			[".mypy_cache/", "mypy keeps its cache there (job `typecheck`)"],
			[".ruff_cache/", "Ruff keeps its cache there (jobs `format`, `lint`)"],
			["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test`)"],
		],
	},
	"python-pdm-pyright": {
		projectName: "reports",
		stacks: [["python", "pyproject.toml", "pdm"]],
		jobs: [
			["typecheck", "pdm run pyright", "pyproject.toml has a [tool.pyright] table"],
			["test", "pdm run pytest", "pyproject.toml has a [tool.pytest.ini_options] table"],
		],
		scopes: [],
		ignores: [
			[".pytest_cache/", "pytest keeps its cache there (job `test`)"],
			["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test`)"],
			[".venv/", "pdm installs the project's environment there, which the jobs run in"],
		],
	},
	"python-poetry": {
		projectName: "billing",
		stacks: [["python", "pyproject.toml", "poetry"]],
		jobs: [
			["format", "poetry run black .", "pyproject.toml has a [tool.black] table"],
			["lint", "poetry run flake8", ".flake8 configures flake8"],
			["test", "poetry run pytest", "pyproject.toml lists pytest"],
		],
		scopes: [],
		ignores: [
			[".pytest_cache/", "pytest keeps its cache there (job `test`)"],
			["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test`)"],
		],
	},
	// The name comes from setup.cfg's [metadata] when pyproject.toml (build settings only) has none.
	"python-setup-cfg": {
		projectName: "legacy-tool",
		stacks: [["python", "pyproject.toml", "pip"]],
		jobs: [
			["lint", "flake8", "setup.cfg has a [flake8] section"],
			["test", "pytest", "setup.cfg has a [tool:pytest] section"],
		],
		scopes: [],
		ignores: [
			[".pytest_cache/", "pytest keeps its cache there (job `test`)"],
			["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test`)"],
		],
	},
	"python-uv": {
		projectName: "inventory",
		stacks: [["python", "pyproject.toml", "uv"]],
		jobs: [
			["format", "uv run ruff format .", "pyproject.toml has a [tool.ruff] table"],
			["lint", "uv run ruff check .", "pyproject.toml has a [tool.ruff] table"],
			["typecheck", "uv run mypy .", "pyproject.toml has a [tool.mypy] table"],
			["test", "uv run pytest", "pyproject.toml lists pytest"],
		],
		scopes: [],
		ignores: [
			[".pytest_cache/", "pytest keeps its cache there (job `test`)"],
			[".mypy_cache/", "mypy keeps its cache there (job `typecheck`)"],
			[".ruff_cache/", "Ruff keeps its cache there (jobs `format`, `lint`)"],
			["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test`)"],
			[".venv/", "`uv run` creates the project's environment there (jobs `format`, `lint`, `typecheck`, `test`)"],
		],
	},
	"rust-workspace": {
		projectName: null,
		stacks: [["rust", "Cargo.toml", null]],
		jobs: [
			["format", "cargo fmt --all", "Cargo.toml declares a Cargo workspace; rustfmt is its formatter (the fix stage writes)"],
			["lint", "cargo clippy --workspace -- -D warnings", "Cargo.toml declares a Cargo workspace; clippy is its linter"],
			["test", "cargo test --workspace", "Cargo.toml declares a Cargo workspace"],
		],
		scopes: [
			{ name: "acme-cli", paths: ["crates/cli/**"], reason: "Cargo.toml lists it as a workspace member" },
			{ name: "acme-core", paths: ["crates/core/**"], reason: "Cargo.toml lists it as a workspace member" },
		],
		ignores: [["/target/", "cargo builds into it (jobs `lint`, `test`)"]],
	},
};

const shape = (proposal: SetupProposal): Expected => ({
	projectName: proposal.projectName,
	stacks: proposal.stacks.map((stack) => [stack.kind, stack.evidence, stack.manager ?? null]),
	jobs: proposal.jobs.map((job) => [job.name, job.run, job.reason]),
	scopes: proposal.scopes,
	ignores: proposal.ignores.map((ignore) => [ignore.line, ignore.reason]),
});

test("every fixture repository has an expected proposal, and every expectation a fixture", () => {
	expect(readdirSync(FIXTURES).sort()).toEqual(Object.keys(EXPECTED).sort());
});

describe("setup proposes what a developer of the stack would write", () => {
	for (const [name, expected] of Object.entries(EXPECTED)) {
		test(name, async () => {
			expect(shape(await detectStack(join(FIXTURES, name)))).toEqual(expected);
		});
	}
});

describe("the rendered discern.toml holds every proposed job and scope", () => {
	for (const name of Object.keys(EXPECTED)) {
		test(name, async () => {
			const proposal = await detectStack(join(FIXTURES, name));
			const text = renderConfig(proposal, { projectName: proposal.projectName ?? name, trunk: "main" });
			const parsed = parseConfig(text);
			if (!parsed.ok) throw new Error(`${JSON.stringify(parsed.issues)}\n${text}`);
			expect(resolveJobs(parsed.config).map((job) => [job.name, job.stage, job.commands])).toEqual(
				proposal.jobs.map((job) => [job.name, job.stage, [job.run]]),
			);
			expect(parsed.config.scopes).toEqual(
				Object.fromEntries(proposal.scopes.map((scope) => [scope.name, { paths: scope.paths, ...(scope.gate ? { gate: scope.gate } : {}), neutral: false }])),
			);
			expect(parsed.config.project.name).toBe(proposal.projectName ?? name);
			for (const job of proposal.jobs) expect(text).toContain(`# ${job.reason}`);
		});
	}
});

describe("a tsconfig.json is a solution (checked with `tsc -b`) only when it has no files of its own", () => {
	const CASES: Array<[string, string | null, string[] | null]> = [
		["files: [] and references", '{ "files": [], "references": [{ "path": "./a" }, { "path": "b/tsconfig.json" }] }', ["a", "b/tsconfig.json"]],
		["comments and trailing commas (tsconfig is JSONC)", '{\n  // solution\n  "files": [],\n  "references": [{ "path": "./a" },],\n}', ["a"]],
		["references beside files of its own", '{ "files": ["index.ts"], "references": [{ "path": "./a" }] }', null],
		["references beside an include", '{ "files": [], "include": ["src"], "references": [{ "path": "./a" }] }', null],
		["no files key: the default include applies", '{ "references": [{ "path": "./a" }] }', null],
		["files: [] and no references", '{ "files": [] }', null],
		["references without paths", '{ "files": [], "references": [{}] }', null],
		["not an object", "[]", null],
		["absent", null, null],
	];
	for (const [name, text, expected] of CASES) test(name, () => expect(solutionReferences(text)).toEqual(expected));
});
