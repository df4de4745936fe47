import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, symlink } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { Diagnostic } from "../../src/contract/envelope.ts";
import { ensureBinary, onlyJson, REPO_ROOT } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

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
	const child = Bun.spawn([binary, ...args], { cwd, env: { ...process.env, PATH: plainPath(), NO_COLOR: "1" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { exitCode, stdout, stderr };
}

/** `discern setup --confirmed` (no agents: none are wired in a test), then the commit a person makes of what it wrote. */
async function adopt(repo: TestRepo): Promise<Array<{ name: string; run: string }>> {
	const setup = onlyJson((await discern(repo.root, ["setup", "--confirmed", "--agents", "", "--json"])).stdout) as unknown as { ok: boolean; data: { jobs: Array<{ name: string; run: string }> } };
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
