import { afterAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { checkCommand } from "../../src/setup/programs.ts";
import { parseCommands, simpleCommands } from "../../src/text/shell-words.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
const dirs: string[] = [];
afterAll(async () => {
	await Promise.all([...made.map((r) => r.remove()), ...dirs.map((dir) => rm(dir, { recursive: true, force: true }))]);
});

async function repo(config: string, files: Record<string, string> = {}): Promise<TestRepo> {
	const r = await makeRepo({ config, files: { "README.md": "# fixture\n", ...files } });
	made.push(r);
	return r;
}

async function executable(path: string): Promise<void> {
	await mkdir(dirname(path), { recursive: true });
	await writeFile(path, "#!/bin/sh\nexit 0\n");
	await chmod(path, 0o755);
}

interface VerifyData {
	verify?: {
		config: string;
		issues: Array<{ message: string; line?: number }>;
		programs: Array<{ owner: string; program: string; found: boolean; detail: string }>;
		also_proposed: Array<{ kind: string; name: string; line: string; reason: string }>;
	};
}

describe("setup verify through the CLI", () => {
	test("an invalid discern.toml fails with invalid_config and exit 1, naming the problem and its line", async () => {
		const r = await repo("[gate]\ntimout = 1\n");
		const run = await runDiscern(["setup", "verify", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(1);
		const envelope = onlyJson(run.stdout);
		expect(envelope.ok).toBe(false);
		expect(envelope.error).toBe("invalid_config");
		expect(envelope.message).toContain("line 2");
		const data = envelope.data as VerifyData;
		expect(data.verify?.config).toBe("invalid");
		expect(data.verify?.issues[0]?.line).toBe(2);
		const text = await runDiscern(["setup", "verify"], { cwd: r.root });
		expect(text.exitCode).toBe(1);
		expect(text.stdout).toContain("invalid  discern.toml:2");
	});

	test("a job whose program is missing fails with checks_failed and exit 1", async () => {
		const r = await repo('[jobs]\nlint = "sh -c true"\ntest = "discern-no-such-runner --all"\n');
		const run = await runDiscern(["setup", "verify", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(1);
		const envelope = onlyJson(run.stdout);
		expect(envelope.error).toBe("checks_failed");
		expect(envelope.message).toBe("A program the gate needs is missing: `discern-no-such-runner` (test).");
		const programs = (envelope.data as VerifyData).verify?.programs ?? [];
		expect(programs.map((check) => [check.owner, check.program, check.found])).toEqual([
			["lint", "sh", true],
			["test", "discern-no-such-runner", false],
		]);
	});

	test("a scope gate's program and a package-manager script are checked too", async () => {
		const r = await repo('[jobs]\ntest = "sh -c true"\n[scopes.web]\npaths = ["web/**"]\ngate = "cd web && sh ./check.sh && npm run lint"\n', {
			"web/package.json": JSON.stringify({ scripts: { test: "vitest" } }),
			"web/check.sh": "exit 0\n",
		});
		const run = await runDiscern(["setup", "verify", "--json"], { cwd: r.root });
		const envelope = onlyJson(run.stdout);
		const programs = (envelope.data as VerifyData).verify?.programs ?? [];
		const lint = programs.find((check) => check.program === "lint");
		// npm itself may or may not be installed where the tests run; the script is missing either way when npm is there.
		if (programs.find((check) => check.program === "npm")?.found) {
			expect(lint).toEqual({ owner: "scopes.web", program: "lint", found: false, detail: 'web/package.json has no "lint" script' });
		}
		expect(envelope.ok).toBe(false);
		expect(run.exitCode).toBe(1);
	});

	test("a good configuration passes with exit 0 and lists what setup would also propose", async () => {
		const r = await repo('[jobs]\nlint = "sh -c true"\ntest = "./scripts/test.sh"\n', {
			"scripts/test.sh": "#!/bin/sh\nexit 0\n",
			"package.json": JSON.stringify({ name: "shop", devDependencies: { typescript: "^5.5.0" } }),
			"tsconfig.json": "{}\n",
			".gitignore": "node_modules/\n",
		});
		await chmod(join(r.root, "scripts/test.sh"), 0o755);
		const run = await runDiscern(["setup", "verify", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(0);
		const envelope = onlyJson(run.stdout);
		expect(envelope.ok).toBe(true);
		const verify = (envelope.data as VerifyData).verify;
		expect(verify?.config).toBe("valid");
		expect(verify?.programs.every((check) => check.found)).toBe(true);
		expect(verify?.also_proposed).toEqual([
			{ kind: "job", name: "typecheck", line: 'typecheck = "npx tsc --noEmit"', reason: 'tsconfig.json and the "typescript" dependency' },
			{
				kind: "install",
				name: "npm install",
				line: '[worktree.setup] ensure = ["npm install"]',
				reason: "package.json without a lockfile: a new worktree has no dependencies; with no lockfile, each one resolves them afresh",
			},
		]);
		const text = await runDiscern(["setup", "verify"], { cwd: r.root });
		expect(text.exitCode).toBe(0);
		expect(text.stdout).toContain('setup would also propose `typecheck = "npx tsc --noEmit"` (tsconfig.json and the "typescript" dependency)');
	});

	test("a job already running a proposed command under another name is not proposed again", async () => {
		const config = '[jobs]\nchecks = { run = "sh -c true", stage = "check" }\nunit = { run = "npx tsc --noEmit", stage = "check" }\n';
		// The install is declared as a creation step, spaced differently: the same command, not proposed again.
		const r = await repo(`${config}[worktree.setup]\nsteps = ["npm   install"]\n`, {
			"package.json": JSON.stringify({ devDependencies: { typescript: "^5" } }),
			"tsconfig.json": "{}\n",
			"node_modules/.bin/tsc": "#!/bin/sh\n",
			".gitignore": "/node_modules\n",
		});
		const run = await runDiscern(["setup", "verify", "--json"], { cwd: r.root, env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` } });
		const verify = (onlyJson(run.stdout).data as VerifyData).verify;
		expect(verify?.also_proposed).toEqual([]);
	});
});

describe("checkCommand: a program resolves on PATH, in node_modules/.bin, in a virtualenv, or as a script", () => {
	test("PATH from the verb's environment, local binaries, runners and scripts", async () => {
		const root = await makeTempDir();
		dirs.push(root);
		const bin = join(root, "fake-path");
		await Promise.all(["npx", "pnpm", "uv", "npm"].map((name) => executable(join(bin, name))));
		await executable(join(root, "node_modules/.bin/eslint"));
		await executable(join(root, ".venv/bin/pytest"));
		await writeFile(join(root, "package.json"), JSON.stringify({ scripts: { lint: "eslint ." } }));
		const env = { PATH: bin };
		const found = async (command: string) => (await checkCommand(root, "job", command, env)).map((check) => [check.program, check.found]);
		expect(await found("npx eslint .")).toEqual([
			["npx", true],
			["eslint", true],
		]);
		expect(await found("pnpm exec tsc --noEmit")).toEqual([
			["pnpm", true],
			["tsc", false],
		]);
		expect(await found("uv run pytest -q")).toEqual([
			["uv", true],
			["pytest", true],
		]);
		expect(await found("npm run lint && npm test")).toEqual([
			["npm", true],
			["lint", true],
			["eslint", true],
			["npm", true],
			["test", false],
		]);
		expect(await found('test -z "$(gofmt -l .)"')).toEqual([["gofmt", false]]);
		expect(await found("FOO=1 env BAR=2 eslint --fix . 2>&1 | tee out.log")).toEqual([
			["eslint", true],
			["tee", false],
		]);
		expect(await found("$TOOL run")).toEqual([]);
	});

	test("the programs of command substitutions are checked too, quotes and arithmetic read as sh reads them", async () => {
		const root = await makeTempDir();
		dirs.push(root);
		const bin = join(root, "fake-path");
		await Promise.all(["npx", "uv"].map((name) => executable(join(bin, name))));
		await executable(join(root, "node_modules/.bin/eslint"));
		await executable(join(root, "service/.venv/bin/ruff"));
		const env = { PATH: bin };
		const found = async (command: string) => (await checkCommand(root, "job", command, env)).map((check) => [check.program, check.found]);
		expect(await found(`files=$(gofmt -l .) && test -z "$files" || { printf '%s\\n' "$files"; exit 1; }`)).toEqual([["gofmt", false]]);
		expect(await found("echo `npx eslint --version`")).toEqual([
			["npx", true],
			["eslint", true],
		]);
		expect(await found('test -z "$(gofmt -l "a dir")" && echo "$(uv run "$(npx eslint)")"')).toEqual([
			["gofmt", false],
			["npx", true],
			["eslint", true],
			["uv", true],
		]);
		// Single quotes keep `$(` literal; `$((` is arithmetic, not a command.
		expect(await found("printf '%s' '$(discern-no-such-tool)' && test $((1 + 2)) -eq 3")).toEqual([]);
		// A substitution runs where the command it belongs to runs.
		expect(await found("cd service && echo $(ruff --version)")).toEqual([["ruff", true]]);
		// The substitution's program is checked even when the word it makes is the program (unknowable itself).
		expect(await found("$(npx which-tool) --flag")).toEqual([
			["npx", true],
			["which-tool", false],
		]);
		// A reserved word is not the program: the word after it is.
		expect(await found("if npx eslint .; then true; fi || { discern-no-such-tool; }")).toEqual([
			["npx", true],
			["eslint", true],
			["discern-no-such-tool", false],
		]);
	});

	test("a folder the command changes into is where its local binaries are looked for", async () => {
		const root = await makeTempDir();
		dirs.push(root);
		await executable(join(root, "service/.venv/bin/ruff"));
		const checks = await checkCommand(root, "lint_service", "cd service && ruff check .", { PATH: "" });
		expect(checks).toEqual([{ owner: "lint_service", program: "ruff", found: true, detail: "service/.venv/bin/ruff" }]);
	});

	test("a package script is followed into its commands, in its folder: `npm test` needs the runner its script starts", async () => {
		const root = await makeTempDir();
		dirs.push(root);
		const bin = join(root, "fake-path");
		await executable(join(bin, "npm"));
		await executable(join(root, "web/node_modules/.bin/vitest"));
		await mkdir(join(root, "web"), { recursive: true });
		await writeFile(join(root, "package.json"), JSON.stringify({ scripts: { test: "npm run unit", unit: "jest --ci" } }));
		await writeFile(join(root, "web/package.json"), JSON.stringify({ scripts: { test: "vitest run" } }));
		const found = async (command: string) =>
			(await checkCommand(root, "test", command, { PATH: bin })).map((check) => [check.program, check.found, check.detail]);
		// A script that runs another script: both are followed, down to the program that is missing.
		expect(await found("npm test")).toEqual([
			["npm", true, join(bin, "npm")],
			["test", true, 'script "test" in package.json'],
			["npm", true, join(bin, "npm")],
			["unit", true, 'script "unit" in package.json'],
			["jest", false, "`jest` is not on PATH, in node_modules/.bin or in a virtualenv (.venv, venv)"],
		]);
		// The script runs in the folder the command changed into, where its binaries are installed.
		expect(await found("cd web && npm test")).toEqual([
			["npm", true, join(bin, "npm")],
			["test", true, 'script "test" in web/package.json'],
			["vitest", true, "web/node_modules/.bin/vitest"],
		]);
		// Yarn's Plug'n'Play (a .yarnrc.yml without a node_modules linker) keeps binaries where only Yarn finds them: the script is not followed.
		await executable(join(bin, "yarn"));
		await mkdir(join(root, "berry"), { recursive: true });
		await writeFile(join(root, "berry/package.json"), JSON.stringify({ scripts: { test: "vitest run" } }));
		await writeFile(join(root, "berry/.yarnrc.yml"), "enableTelemetry: false\n");
		expect(await found("cd berry && yarn run test")).toEqual([
			["yarn", true, join(bin, "yarn")],
			["test", true, 'script "test" in berry/package.json'],
		]);
		await writeFile(join(root, "berry/.yarnrc.yml"), "nodeLinker: node-modules\n");
		expect((await found("cd berry && yarn run test")).map(([program, found]) => [program, found])).toEqual([
			["yarn", true],
			["test", true],
			["vitest", false],
		]);
	});

	test("simpleCommands splits like sh: operators, quotes, substitutions, redirections", () => {
		expect(simpleCommands(`a 'b c' "d e" && f|g; h || i & j`)).toEqual([["a", "b c", "d e"], ["f"], ["g"], ["h"], ["i"], ["j"]]);
		expect(simpleCommands('test -z "$(gofmt -l .)" > /dev/null 2>&1')).toEqual([["test", "-z", "$(gofmt -l .)"]]);
		expect(simpleCommands("x $(a && b) y # a comment && z")).toEqual([["x", "$(a && b)", "y"]]);
		expect(parseCommands(`a "$(b ")" 'c')" \`d \\\`e\\\`\` '$(f)' $((1 + (2)))`)).toEqual([
			{ words: ["a", `$(b ")" 'c')`, "`d \\`e\\``", "$(f)", "$((1 + (2)))"], substitutions: [`b ")" 'c'`, "d `e`"], closed: 0, opened: 0 },
		]);
		// A here-document's body is data: nothing from it on is read as commands.
		expect(simpleCommands("cat <<EOF\nrm -rf x\nEOF\nmake")).toEqual([["cat"]]);
		// Substitutions nested past any real command line end as one word, without exhausting the stack.
		const deep = `echo ${"$(".repeat(20_000)}x${")".repeat(20_000)}`;
		expect(parseCommands(deep)[0]?.words[0]).toBe("echo");
		// Subshells: where each opens and closes, so that a reader of `cd` knows where it ends.
		expect(parseCommands("(cd a && x) ; () y").map(({ words, closed, opened }) => ({ words, closed, opened }))).toEqual([
			{ words: ["cd", "a"], closed: 0, opened: 1 },
			{ words: ["x"], closed: 0, opened: 0 },
			{ words: ["y"], closed: 1, opened: 0 },
		]);
	});
});

describe("setup verify in a task worktree", () => {
	test("a build's output the main checkout has is missing, not a program the worktree's install brings", async () => {
		const { makeWorktreeRepo } = await import("../helpers/worktree.ts");
		const r = await makeWorktreeRepo({ config: '[jobs]\nlint = "./build/mylinter"\ntest = "true"\n', files: { ".gitignore": "build/\n" } });
		made.push(r);
		await mkdir(join(r.root, "build"));
		await writeFile(join(r.root, "build/mylinter"), "#!/bin/sh\n");
		await chmod(join(r.root, "build/mylinter"), 0o755);
		const run = await runDiscern(["setup", "verify", "--json"], { cwd: r.wt });
		const verify = (onlyJson(run.stdout).data as VerifyData).verify;
		const linter = verify?.programs.find((check) => check.program === "./build/mylinter");
		expect(linter?.found).toBe(false);
		expect(linter).not.toHaveProperty("after_setup");
		expect(run.exitCode).toBe(1);
	});
});
