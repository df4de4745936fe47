import { afterEach, describe, expect, test } from "bun:test";
import { realpath, rm, symlink } from "node:fs/promises";
import type { AnyResult, Diagnostic } from "../../src/contract/envelope.ts";
import { commandFolders, findingPaths } from "../../src/findings/finding-paths.ts";
import { outputDiagnostics } from "../../src/findings/matchers/index.ts";
import { type GitCall, watchGit } from "../../src/git/run.ts";
import { done } from "../../src/proof/done.ts";
import { renderDone } from "../../src/verbs/done/render.ts";
import { onlyJson, REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * A tool that ran in another folder than the root prints paths from there;
 * findings name them from the root (src/findings/finding-paths.ts). Red gates on
 * real tools: tsc and vitest (node_modules), npm, go (when installed).
 */
const TSC = `${REPO_ROOT}/node_modules/.bin/tsc`;
const VITEST = `${REPO_ROOT}/node_modules/.bin/vitest`;
const GO_TEST_OUTPUT = `${REPO_ROOT}/tests/fixtures/tool-output/go-test.txt`;

const made: TestRepo[] = [];
const folders: string[] = [];
afterEach(async () => {
	watchGit(undefined);
	for (const r of made.splice(0)) await r.remove();
	for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function repo(config: string, files: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ config, files: { ".gitignore": "node_modules/\n", ...files } });
	made.push(r);
	return r;
}

function findings(result: AnyResult): Diagnostic[] {
	return (result.diagnostics ?? []).filter((diagnostic) => diagnostic.file !== undefined);
}

function text(result: AnyResult): string {
	return renderDone(result as Parameters<typeof renderDone>[0], { color: false, verbose: false });
}

/** The git calls that list the repository's files for finding paths, while `run` runs. */
async function fileListings<T>(run: () => Promise<T>): Promise<{ result: T; listings: GitCall[] }> {
	const listings: GitCall[] = [];
	watchGit((call) => {
		if (call.args.includes("ls-files") && call.args.includes("--cached") && call.args.includes("--others")) listings.push(call);
	});
	try {
		return { result: await run(), listings };
	} finally {
		watchGit(undefined);
	}
}

const SUM_TS = 'export function sum(a: number, b: number): number {\n\treturn a + b;\n}\nexport const n: number = sum(1, 2) + "";\n';
const TSCONFIG =
	'{ "compilerOptions": { "strict": true, "noEmit": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "bundler", "types": [] }, "include": ["src"] }\n';
const FAILING_TEST = 'test("adds", () => {\n\texpect(1 + 1).toBe(3);\n});\n';

describe("a tool run in a sub-folder: findings name the file from the repository root", () => {
	test("cd web && tsc --noEmit: web/src/sum.ts in the diagnostics and the text, though the root has a src/sum.ts too", async () => {
		const command = `cd web && ${TSC} --noEmit`;
		const r = await repo(`[jobs]\ntypecheck = "${command}"\n`, {
			"web/tsconfig.json": TSCONFIG,
			"web/src/sum.ts": SUM_TS,
			"src/sum.ts": "export const fine = 1;\n",
		});
		const { result, listings } = await fileListings(() => done(r.ctx(), {}));
		expectValidEnvelope("done", result);
		expect(result.ok ? "" : result.error).toBe("gate_failed");
		expect(findings(result)).toEqual([
			{
				tool: "typecheck",
				severity: "error",
				message: "Type 'string' is not assignable to type 'number'.",
				reproduce_cmd: command,
				file: "web/src/sum.ts",
				line: 4,
				col: 14,
				rule: "TS2322",
			},
		]);
		expect(text(result)).toContain("  ✖ web/src/sum.ts:4:14  TS2322  Type 'string' is not assignable to type 'number'.");
		// The folder the command changes into held the file: no listing of the repository's files.
		expect(listings).toEqual([]);
	});

	test("the CLI's --json and text say the same", async () => {
		const r = await repo(`[jobs]\ntypecheck = "cd web && ${TSC} --noEmit"\n`, { "web/tsconfig.json": TSCONFIG, "web/src/sum.ts": SUM_TS });
		const json = onlyJson((await runDiscern(["done", "--json"], { cwd: r.root })).stdout);
		const diagnostics = (json.diagnostics ?? []) as Diagnostic[];
		expect(diagnostics.filter((d) => d.file !== undefined).map((d) => `${d.file}:${d.line}:${d.col}`)).toEqual(["web/src/sum.ts:4:14"]);
		const plain = await runDiscern(["done", "--rerun"], { cwd: r.root }); // the same tree again: --rerun runs it
		expect(plain.stdout + plain.stderr).toContain("web/src/sum.ts:4:14  TS2322");
	});

	test("cd web && vitest run: the failing test at web/test/sum.test.ts", async () => {
		const command = `cd web && ${VITEST} run --globals`;
		const r = await repo(`[jobs]\ntest = "${command}"\n`, { "web/package.json": "{}\n", "web/test/sum.test.ts": FAILING_TEST });
		const result = await done(r.ctx(), {});
		expect(result.ok).toBe(false);
		expect(findings(result).map(({ file, line, col }) => ({ file, line, col }))).toEqual([{ file: "web/test/sum.test.ts", line: 2, col: 16 }]);
		expect(text(result)).toContain("web/test/sum.test.ts:2:16");
	});

	test("an npm workspace scope gate (npm test -w packages/api): packages/api/test/a.test.ts", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n[scopes.api]\npaths = ["packages/api/**"]\ngate = "npm test -w packages/api"\n`, {
			"package.json": '{ "name": "root", "private": true, "workspaces": ["packages/*"] }\n',
			"packages/api/package.json": `{ "name": "api", "scripts": { "test": "${VITEST} run --globals" } }\n`,
			"packages/api/test/a.test.ts": 'test("passes", () => {\n\texpect(1).toBe(1);\n});\n',
		});
		await r.git("switch", "-q", "-c", "feature");
		await r.write("packages/api/test/a.test.ts", FAILING_TEST);
		await r.commitAll("break api");
		const result = await done(r.ctx(), {});
		expect(result.ok).toBe(false);
		expect(result.steps?.find((step) => step.label === "scope:api")?.outcome).toBe("failed");
		expect(findings(result).map(({ file, line, col }) => ({ file, line, col }))).toEqual([{ file: "packages/api/test/a.test.ts", line: 2, col: 16 }]);
	});
});

describe("what a gate pays for it", () => {
	test("a green gate and a red one whose findings are named from the root list no files", async () => {
		const green = await repo('[jobs]\ntest = "true"\n', { "README.md": "# x\n" });
		const passed = await fileListings(() => done(green.ctx(), {}));
		expect(passed.result.ok).toBe(true);
		expect(passed.listings).toEqual([]);

		const red = await repo(`[jobs]\ntypecheck = "${TSC} --noEmit"\n`, { "tsconfig.json": TSCONFIG, "src/sum.ts": SUM_TS });
		const failed = await fileListings(() => done(red.ctx(), {}));
		expect(findings(failed.result).map((d) => d.file)).toEqual(["src/sum.ts"]);
		expect(failed.listings).toEqual([]);
	});
});

describe("looking a printed path up among the repository's files (go test's captured output)", () => {
	async function goFindings(): Promise<Diagnostic[]> {
		return outputDiagnostics(await Bun.file(GO_TEST_OUTPUT).text(), { name: "test", command: "go test ./..." })?.diagnostics ?? [];
	}

	async function resolved(r: TestRepo, command: string, found?: Diagnostic[]): Promise<(string | undefined)[]> {
		return (await findingPaths(r.root).resolve(found ?? (await goFindings()), command)).map((d) => d.file);
	}

	test("the one file ending in the printed name: its package's folder", async () => {
		const r = await repo("", { "calc/calc_test.go": "package calc\n", "main.go": "package main\n" });
		expect(await goFindings()).toHaveLength(1);
		expect(await resolved(r, "go test ./...")).toEqual(["calc/calc_test.go"]);
	});

	test("a file not yet added counts; an ignored one does not", async () => {
		const r = await repo("", { "README.md": "# x\n" });
		await r.write("calc/calc_test.go", "package calc\n");
		expect(await resolved(r, "go test ./...")).toEqual(["calc/calc_test.go"]);
		const ignored = await repo("", { ".gitignore": "vendor/\n" });
		await ignored.write("vendor/calc/calc_test.go", "package calc\n");
		expect(await resolved(ignored, "go test ./...")).toEqual(["calc_test.go"]);
	});

	test("several files end in it: as printed, unless one is under the folder the command changes into", async () => {
		const r = await repo("", { "a/calc/calc_test.go": "package calc\n", "b/calc/calc_test.go": "package calc\n" });
		expect(await resolved(r, "go test ./...")).toEqual(["calc_test.go"]);
		expect(await resolved(r, "cd a && go test ./...")).toEqual(["a/calc/calc_test.go"]);
		expect(await resolved(r, "make -C b test")).toEqual(["b/calc/calc_test.go"]);
	});

	test("no file ends in it: as printed", async () => {
		const r = await repo("", { "README.md": "# x\n" });
		expect(await resolved(r, "go test ./...")).toEqual(["calc_test.go"]);
	});

	test("absolute paths inside the checkout (its real path too) become relative; outside, or leading out, stay", async () => {
		const r = await repo("", { "src/a.c": "int a;\n", "lib/b.c": "int b;\n" });
		const real = await realpath(r.root);
		const at = (file: string): Diagnostic => ({ tool: "build", severity: "error", message: "m", reproduce_cmd: "cc", file });
		const files = [at(`${real}/src/a.c`), at("/elsewhere/b.h"), at("../outside.c"), at("src/a.c"), at('"src/\\"q\\".c"')];
		expect(await resolved(r, "cc -c src/a.c", files)).toEqual(["src/a.c", "/elsewhere/b.h", "../outside.c", "src/a.c", '"src/\\"q\\".c"']);
		// From a sub-folder, `../lib/b.c` leads to a file of the checkout.
		expect(await resolved(r, "cd src && cc -c a.c", [at("../lib/b.c")])).toEqual(["lib/b.c"]);
	});

	test("a checkout reached through a symlink: a path under its real path is relative too", async () => {
		const r = await repo("", { "src/a.c": "int a;\n" });
		const link = `${r.root}.link`;
		folders.push(link);
		await symlink(r.root, link);
		const found = await findingPaths(link).resolve(
			[{ tool: "build", severity: "error", message: "m", reproduce_cmd: "cc", file: `${await realpath(r.root)}/src/a.c` }],
			"cc",
		);
		expect(found.map((d) => d.file)).toEqual(["src/a.c"]);
	});
});

describe("the folders a command changes into", () => {
	const root = "/repo";
	test("a leading cd, chained cds, and the folder flags", () => {
		expect(commandFolders("cd web && npx tsc --noEmit", root)).toEqual(["web"]);
		expect(commandFolders("cd a && cd b; make -C c", root)).toEqual(["a", "a/b", "a/b/c"]);
		expect(commandFolders("npm test -w packages/api", root)).toEqual(["packages/api"]);
		expect(commandFolders("npm test --workspace=packages/api && yarn --cwd web test && npm --prefix ui test", root)).toEqual(["packages/api", "web", "ui"]);
		expect(commandFolders("(cd x && make) && cd y && make", root)).toEqual(["x", "y"]);
		expect(commandFolders('cd "my app" && CI=1 npm test', root)).toEqual(["my app"]);
		expect(commandFolders("cd /repo/web/ && tsc", root)).toEqual(["web"]);
	});

	test("a folder the words cannot say, or outside the root, is none", () => {
		expect(commandFolders("cd $APP && tsc", root)).toEqual([]);
		expect(commandFolders("cd ~/x && tsc", root)).toEqual([]);
		expect(commandFolders("cd /elsewhere && tsc", root)).toEqual([]);
		expect(commandFolders("cd .. && tsc", root)).toEqual([]);
		expect(commandFolders("cd . && tsc -w", root)).toEqual([]);
		expect(commandFolders("echo cd web", root)).toEqual([]);
	});

	test("a folder flag counts only for a program that takes one: grep -C 3, prettier -w src and cd's own options name no folder", () => {
		expect(commandFolders("grep -C 3 TODO src && prettier -w src && gofmt -w pkg", root)).toEqual([]);
		expect(commandFolders("cd -P web && tsc", root)).toEqual(["web"]);
		expect(commandFolders("go -C tools vet ./... && pnpm -C site test", root)).toEqual(["tools", "site"]);
		// A subshell's cd ends with it, a second subshell starts from the command line's folder again.
		expect(commandFolders("(cd a && make) ; (cd b && make) ; make -C c", root)).toEqual(["a", "b", "c"]);
	});
});
