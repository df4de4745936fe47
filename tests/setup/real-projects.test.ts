import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cp, mkdir, readFile, rm, symlink } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { Diagnostic } from "../../src/contract/envelope.ts";
import { ensureBinary, onlyJson, REPO_ROOT } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

/**
 * Real projects, end to end through the compiled binary: a repository as a
 * person has it, `discern setup --confirmed` with no edits, a commit, then
 * `discern done`. The projects' tools are real, installed with this
 * repository (exact devDependencies in its package-lock.json), so nothing
 * here reaches a registry: a project's `node_modules` links the packages it
 * declares (and `.bin`) from ours, and its `.gitignore` leaves them out of
 * the commit, as an installed project's does.
 */

const NODE_MODULES = join(REPO_ROOT, "node_modules");

/** The project's install: its declared packages and the `.bin` folder, linked from this repository's. */
async function linkInstalled(root: string, packages: readonly string[]): Promise<void> {
	await mkdir(join(root, "node_modules"), { recursive: true });
	await symlink(join(NODE_MODULES, ".bin"), join(root, "node_modules", ".bin"));
	for (const name of packages) {
		await mkdir(join(root, "node_modules", name, ".."), { recursive: true });
		await symlink(join(NODE_MODULES, name), join(root, "node_modules", name));
	}
}

/** PATH without any `node_modules/.bin` (npm puts ours there for `npm test`): a project finds its tools in its own install. */
function plainPath(): string {
	return (process.env.PATH ?? "")
		.split(delimiter)
		.filter((dir) => !/node_modules[\\/]\.bin/.test(dir))
		.join(delimiter);
}

interface Envelope {
	ok: boolean;
	error?: string;
	data?: { failed_stage?: string | null; proof?: { line: string } | null };
	steps?: Array<{ label: string; outcome: string }>;
	diagnostics?: Diagnostic[];
}

let binary: string;
beforeAll(async () => {
	binary = await ensureBinary();
});

async function discern(cwd: string, args: readonly string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
	// npm's update check is the one thing a job here would ask the network for: off, as on an offline machine.
	const env: Record<string, string | undefined> = { ...process.env, PATH: plainPath(), NO_COLOR: "1", npm_config_update_notifier: "false" };
	const child = Bun.spawn([binary, ...args], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { exitCode, stdout, stderr };
}

/** `discern setup --confirmed` (no agents: none are wired in a test), then the commit a person makes of what it wrote. */
async function adopt(repo: TestRepo): Promise<Array<{ name: string; run: string }>> {
	const setup = onlyJson((await discern(repo.root, ["setup", "--confirmed", "--agents", "", "--json"])).stdout) as unknown as {
		ok: boolean;
		data: { jobs: Array<{ name: string; run: string }> };
	};
	expect(setup.ok).toBe(true);
	await repo.commitAll("adopt discern");
	return setup.data.jobs.map(({ name, run }) => ({ name, run }));
}

// ---------------------------------------------------------------- Vitest, red

const SUM = "export function sum(a: number, b: number): number {\n\treturn a - b;\n}\n";
const SUM_TEST = `import { describe, expect, test } from "vitest";
import { sum } from "../src/sum.ts";

describe("sum", () => {
\ttest("adds two numbers", () => {
\t\texpect(sum(2, 3)).toBe(5);
\t});
\ttest("is zero for nothing", () => {
\t\texpect(sum(0, 0)).toBe(0);
\t});
});
`;

/** The two ways a Vitest project says how its tests run: only the dependency, or a `test` script. */
const VITEST_PROJECTS = [
	{ kind: "a vitest devDependency", scripts: undefined, proposed: "npx vitest run" },
	{ kind: 'a "test": "vitest run" script', scripts: { test: "vitest run" }, proposed: "npm test" },
	// Watch mode unless stdin is a terminal or CI is set: the gate closes stdin, so it runs once.
	{ kind: 'a "test": "vitest" script', scripts: { test: "vitest" }, proposed: "npm test" },
];

describe.each(VITEST_PROJECTS)("a real Vitest project with a failing test, declared by $kind", ({ scripts, proposed }) => {
	let repo: TestRepo;
	beforeAll(async () => {
		const manifest = { name: "calc", version: "1.0.0", private: true, type: "module", ...(scripts ? { scripts } : {}), devDependencies: { vitest: "4.1.12" } };
		repo = await makeRepo({
			commit: false,
			files: { ".gitignore": "node_modules/\n", "package.json": `${JSON.stringify(manifest, null, 2)}\n`, "src/sum.ts": SUM, "test/sum.test.ts": SUM_TEST },
		});
		await linkInstalled(repo.root, ["vitest"]);
	});
	afterAll(() => repo.remove());

	test(`setup proposes \`${proposed}\`; done is red at the failing assertion's file:line:col`, async () => {
		expect(await adopt(repo)).toEqual([{ name: "test", run: proposed }]);

		const run = await discern(repo.root, ["done", "--json"]);
		const result = onlyJson(run.stdout) as unknown as Envelope;
		expect(run.exitCode).not.toBe(0);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("gate_failed");
		expect(result.data?.failed_stage).toBe("test");
		expect(result.steps?.map((step) => [step.label, step.outcome])).toEqual([["test", "failed"]]);
		const findings = (result.diagnostics ?? []).filter((diagnostic) => diagnostic.file !== undefined);
		expect(findings).toEqual([
			{
				tool: "test",
				severity: "error",
				message: "`sum > adds two numbers`: AssertionError: expected -1 to be 5 // Object.is equality",
				reproduce_cmd: proposed,
				file: "test/sum.test.ts",
				line: 6,
				col: 21,
			},
		]);

		// The same finding in the text a person reads (the tree is unchanged, so the red run is repeated on purpose).
		const text = await discern(repo.root, ["done", "--rerun"]);
		expect(text.exitCode).toBe(run.exitCode);
		expect(text.stdout).toContain("test/sum.test.ts:6:21  `sum > adds two numbers`: AssertionError: expected -1 to be 5");
	});
});

// ------------------------------------------------- real open-source projects, green

/**
 * Real projects from the npm registry, installed as devDependencies of this
 * repository so `npm ci` brings their published files (no network in the
 * test). Each is chosen because its tarball is the project as its developers
 * have it: the scripts and devDependencies in its package.json, its source
 * and its tests or its tsconfig.json. setup's proposal runs unmodified and
 * must be green.
 *
 * - mime 1.6.0 (`fixture-mime`, an alias: the package is only a fixture): a
 *   JavaScript library whose tarball ships its tests (src/test.js) and the
 *   `test` script that runs them with node alone, so it needs no tool.
 * - create-vite 9.3.0: Vite's own scaffolder, run offline as `npm create vite`
 *   runs it; its vanilla-ts template asks for typescript ~7.0.2 and vite
 *   ^8.3.4, the versions this repository already pins (7.0.2, 8.3.8).
 *
 * Other ecosystems cannot be done this way here: of the package registries
 * only npm's (and Debian's) is reachable. PyPI, crates.io and the Go module
 * proxy fail on name resolution; pip's configured local wheel store holds
 * wheels only (no sdists, so no project's tests) and is part of this machine
 * image, not of a fresh clone.
 */

/** Green, with exactly these jobs passed, and nothing left changed in the tree. */
async function expectGreen(repo: TestRepo, jobs: readonly string[]): Promise<Envelope> {
	const run = await discern(repo.root, ["done", "--json"]);
	const result = onlyJson(run.stdout) as unknown as Envelope;
	if (!result.ok) throw new Error(`done was red:\n${run.stdout}`);
	expect(run.exitCode).toBe(0);
	expect(result.data?.failed_stage).toBeNull();
	expect(result.steps?.map((step) => [step.label, step.outcome])).toEqual(jobs.map((job) => [job, "ok"]));
	expect(result.data?.proof?.line).toContain(`passed ${jobs.join(", ")} (${jobs.length} job${jobs.length > 1 ? "s" : ""}`);
	expect(await repo.git("status", "--porcelain")).toBe("");
	return result;
}

describe("a real JavaScript library, mime 1.6.0 as published", () => {
	let repo: TestRepo;
	beforeAll(async () => {
		repo = await makeRepo({ commit: false, files: {} });
		await cp(join(NODE_MODULES, "fixture-mime"), repo.root, { recursive: true });
		await repo.commitAll("mime 1.6.0");
	});
	afterAll(() => repo.remove());

	test("setup proposes its `test` script; done runs it unmodified and is green", async () => {
		const manifest = JSON.parse(await readFile(join(repo.root, "package.json"), "utf8")) as { name: string; version: string; scripts: Record<string, string> };
		expect([manifest.name, manifest.version, manifest.scripts.test]).toEqual(["mime", "1.6.0", "node src/test.js"]);
		expect(await adopt(repo)).toEqual([{ name: "test", run: "npm test" }]);
		await expectGreen(repo, ["test"]);
	});
});

/** A repository holding what `npm create vite` makes with this template (create-vite's own CLI, offline: the templates are in its package). */
async function createVite(template: string): Promise<TestRepo> {
	const scratch = await makeTempDir("discern-create-vite-");
	try {
		const scaffold = Bun.spawn(["node", join(NODE_MODULES, "create-vite", "index.js"), "app", "--template", template, "--no-immediate", "--no-interactive"], {
			cwd: scratch,
			env: { ...process.env, PATH: plainPath() },
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
		});
		if ((await scaffold.exited) !== 0) throw new Error(`create-vite failed: ${await new Response(scaffold.stderr).text()}`);
		const repo = await makeRepo({ commit: false, files: {} });
		await cp(join(scratch, "app"), repo.root, { recursive: true });
		await repo.commitAll("npm create vite");
		return repo;
	} finally {
		await rm(scratch, { recursive: true, force: true });
	}
}

describe("a real TypeScript app, made by create-vite 9.3.0 (template vanilla-ts)", () => {
	let repo: TestRepo;
	beforeAll(async () => {
		repo = await createVite("vanilla-ts");
		// What `npm install` gives it: the two packages it declares (its .gitignore leaves node_modules and dist out).
		await linkInstalled(repo.root, ["typescript", "vite"]);
	});
	afterAll(() => repo.remove());

	test("setup proposes its build script and tsc; done runs both unmodified and is green", async () => {
		const manifest = JSON.parse(await readFile(join(repo.root, "package.json"), "utf8")) as {
			scripts: Record<string, string>;
			devDependencies: Record<string, string>;
		};
		expect(manifest.scripts.build).toBe("tsc && vite build");
		expect(manifest.devDependencies).toEqual({ typescript: "~7.0.2", vite: "^8.3.4" });
		expect(await adopt(repo)).toEqual([
			{ name: "build", run: "npm run build" },
			{ name: "typecheck", run: "npx tsc --noEmit" },
		]);
		await expectGreen(repo, ["build", "typecheck"]);
	});
});

describe("a real React app, made by create-vite 9.3.0 (template react-ts)", () => {
	let repo: TestRepo;
	beforeAll(async () => {
		repo = await createVite("react-ts");
	});
	afterAll(() => repo.remove());

	// Its tsconfig.json only references tsconfig.app.json and tsconfig.node.json, where `tsc --noEmit` checks
	// nothing and exits 0. Only the proposal is checked: its gate needs React, its types, its Vite plugin and
	// oxlint (some 30 MB more to install with this repository), which the vanilla-ts app shows the gate without.
	test("setup proposes its build and lint scripts, and `tsc -b` for its solution-style tsconfig.json", async () => {
		const manifest = JSON.parse(await readFile(join(repo.root, "package.json"), "utf8")) as { scripts: Record<string, string> };
		expect(manifest.scripts).toMatchObject({ build: "tsc -b && vite build", lint: "oxlint" });
		expect(await adopt(repo)).toEqual([
			{ name: "build", run: "npm run build" },
			{ name: "lint", run: "npm run lint" },
			{ name: "typecheck", run: "npx tsc -b" },
		]);
	});
});
