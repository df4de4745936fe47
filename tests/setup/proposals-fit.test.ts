import { afterAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveJobs } from "../../src/config/jobs.ts";
import { parseConfig } from "../../src/config/load.ts";
import { detectStack, type ProposedJob } from "../../src/setup/detect.ts";
import { isCheckOnlyFormatter } from "../../src/setup/formatters.ts";
import { renderConfig } from "../../src/setup/render-config.ts";

/**
 * Proposals shaped like how the project really runs (issue 22, item 2):
 * the test job runs the test runner, not a script that chains the lint and
 * type checks before it; a fix-stage formatter writes; a format script
 * that only checks is a check-stage job.
 */

const made: string[] = [];

afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function repo(files: Record<string, string>): Promise<string> {
	const root = await mkdtemp(join(tmpdir(), "discern-fit-"));
	made.push(root);
	for (const [name, content] of Object.entries(files)) {
		await mkdir(dirname(join(root, name)), { recursive: true });
		await writeFile(join(root, name), content);
	}
	return root;
}

const manifest = (scripts: Record<string, string>, devDependencies: Record<string, string> = {}) =>
	JSON.stringify({ name: "fixture", version: "1.0.0", type: "module", scripts, devDependencies }, null, 2);

/** unjs/giget's package.json, cut down: its "test" script chains lint and the type check before Vitest. */
const GIGET = {
	"package.json": manifest(
		{
			build: "unbuild",
			lint: "eslint . && prettier -c src test",
			test: "pnpm lint && pnpm test:types && vitest run --coverage",
			"test:types": "tsc --noEmit",
		},
		{ eslint: "^9.0.0", prettier: "^3.0.0", typescript: "^5.0.0", unbuild: "^3.0.0", vitest: "^3.0.0" },
	),
	"pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
	"tsconfig.json": '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n',
	"src/index.ts": "export const x = 1;\n",
};

interface Case {
	name: string;
	files: Record<string, string>;
	/** name → [stage, run] of the jobs the case is about. */
	expected: Record<string, [string, string]>;
	/** Words the named job's reason must hold. */
	reasons?: Record<string, string[]>;
}

const CASES: Case[] = [
	{
		name: "giget: a chained test script proposes the runner; lint and typecheck stay jobs of their own",
		files: GIGET,
		expected: {
			lint: ["check", "pnpm run lint"],
			typecheck: ["check", "pnpm run test:types"],
			test: ["test", "pnpm exec vitest run --coverage"],
		},
		reasons: { test: ['package.json has a "test" script', "`pnpm lint`, `pnpm test:types`", "`vitest run --coverage` alone", "their own jobs"] },
	},
	{
		name: "npm: a chained test script runs the runner through npx",
		files: { "package.json": manifest({ test: "tsc --noEmit && jest --ci" }, { jest: "^29.0.0" }), "package-lock.json": "{}" },
		expected: { test: ["test", "npx jest --ci"] },
	},
	{
		name: "a chain that changes folder before its runner stays the script: the runner alone would run elsewhere",
		files: { "package.json": manifest({ test: "pnpm lint && cd pkg && vitest run" }, { vitest: "^3.0.0" }), "package-lock.json": "{}" },
		expected: { test: ["test", "npm test"] },
	},
	{
		name: "a script that starts a server in the background before its runner stays the script",
		files: { "package.json": manifest({ test: "node server.js & vitest run" }, { vitest: "^3.0.0" }), "package-lock.json": "{}" },
		expected: { test: ["test", "npm test"] },
	},
	{
		name: "a chain with `;` or `||` stays the script",
		files: { "package.json": manifest({ test: "tsc --noEmit; jest --ci || true" }, { jest: "^29.0.0" }), "package-lock.json": "{}" },
		expected: { test: ["test", "npm test"] },
	},
	{
		name: "a Rust crate formats in the fix stage",
		files: { "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\n', "src/lib.rs": "pub fn x() {}\n" },
		expected: { format: ["fix", "cargo fmt"], lint: ["check", "cargo clippy -- -D warnings"] },
	},
	{
		name: "a Python project with Black and Ruff's formatter configured writes with both",
		files: {
			"pyproject.toml":
				'[project]\nname = "demo"\n\n[tool.black]\nline-length = 88\n\n[tool.ruff]\nline-length = 88\n\n[tool.ruff.format]\nquote-style = "double"\n',
			"uv.lock": "",
		},
		expected: { format: ["fix", "uv run ruff format . && uv run black ."], lint: ["check", "uv run ruff check ."] },
	},
	{
		name: "a Python project that formats with Black writes with Black",
		files: { "pyproject.toml": '[project]\nname = "demo"\n\n[tool.black]\nline-length = 88\n' },
		expected: { format: ["fix", "black ."] },
	},
	{
		name: "a Go module formats with gofmt -w",
		files: { "go.mod": "module example.com/demo\n\ngo 1.22\n" },
		expected: { format: ["fix", "gofmt -w ."] },
	},
	{
		name: "Prettier without a format script writes",
		files: { "package.json": manifest({}, { prettier: "^3.0.0" }), "pnpm-lock.yaml": "" },
		expected: { format: ["fix", "pnpm exec prettier --write ."] },
	},
	{
		name: "Biome without a format script writes",
		files: { "package.json": manifest({}, { "@biomejs/biome": "^2.0.0" }), "biome.json": "{}", "bun.lock": "{}" },
		expected: { format: ["fix", "bunx biome format --write ."] },
	},
	{
		name: "a format script that only checks is a check-stage job",
		files: { "package.json": manifest({ format: "prettier --check ." }, { prettier: "^3.0.0" }), "pnpm-lock.yaml": "" },
		expected: { format: ["check", "pnpm run format"] },
		reasons: { format: ["only checks (`prettier --check .`)", "check-stage"] },
	},
];

const byName = (jobs: readonly ProposedJob[], name: string) => jobs.find((job) => job.name === name);

describe("setup proposes jobs that fit how the project runs", () => {
	for (const { name, files, expected, reasons } of CASES) {
		test(name, async () => {
			const proposal = await detectStack(await repo(files));
			for (const [job, [stage, run]] of Object.entries(expected))
				expect([job, byName(proposal.jobs, job)?.stage, byName(proposal.jobs, job)?.run]).toEqual([job, stage, run]);
			for (const [job, words] of Object.entries(reasons ?? {})) for (const word of words) expect(byName(proposal.jobs, job)?.reason).toContain(word);
			// No fix-stage job only checks: prepare would format nothing, and fail-fast would skip the checks after it.
			for (const job of proposal.jobs) if (job.stage === "fix") expect([job.name, isCheckOnlyFormatter(job.run)]).toEqual([job.name, false]);
			// The rendered discern.toml reads back with the same stages and commands.
			const parsed = parseConfig(renderConfig(proposal, { projectName: "fixture", trunk: "main" }));
			if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
			expect(resolveJobs(parsed.config).map((job) => [job.name, job.stage, job.commands])).toEqual(
				proposal.jobs.map((job) => [job.name, job.stage, [job.run]]),
			);
		});
	}
});

describe("a check-only formatter is told from a writing one", () => {
	const CHECKS: Array<[string, boolean]> = [
		["cargo fmt --check", true],
		["cargo fmt --all -- --check", true],
		["cargo fmt", false],
		["npx prettier --check .", true],
		["prettier -c src test", true],
		["prettier --write .", false],
		["pnpm exec biome format .", true],
		["biome format --write .", false],
		["uv run ruff format --check .", true],
		["ruff format .", false],
		["black --check .", true],
		["black .", false],
		["gofmt -l .", true],
		[`files=$(gofmt -l .) && test -z "$files"`, true],
		["gofmt -w .", false],
		["dprint check", true],
		["dprint fmt", false],
		["eslint . --fix", false],
	];
	for (const [line, checkOnly] of CHECKS) {
		test(line, () => {
			expect(isCheckOnlyFormatter(line)).toBe(checkOnly);
		});
	}
});
