import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { done } from "../../src/proof/done.ts";
import { appendedIgnoreFile } from "../../src/setup/ignores.ts";
import { renderSetup } from "../../src/verbs/setup/render.ts";
import { setup } from "../../src/verbs/setup/setup.ts";
import { verifySetup } from "../../src/verbs/setup/verify.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

/**
 * setup proposes the root .gitignore lines the proposed jobs need (their
 * caches, the environment or packages they run from), asks git which of
 * them the repository's .gitignore files already honour, and with
 * --confirmed appends the rest, every byte already there kept.
 */

const made: TestRepo[] = [];
const dirs: string[] = [];
afterEach(async () => {
	await Promise.all([...made.splice(0).map((r) => r.remove()), ...dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))]);
});
async function repo(files: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ files });
	made.push(r);
	return r;
}

/** A uv project using pytest, mypy and Ruff. */
const PYTHON = {
	"pyproject.toml": '[project]\nname = "inventory"\n\n[dependency-groups]\ndev = ["pytest", "mypy", "ruff"]\n',
	"uv.lock": "version = 1\n",
	"inventory.py": "X = 1\n",
};

const HEADER = "# Written by the tools discern's jobs run (added by discern setup):";

const ALL_LINES: Array<[string, string]> = [
	[".pytest_cache/", "pytest keeps its cache there (job `test`)"],
	[".mypy_cache/", "mypy keeps its cache there (job `typecheck`)"],
	[".ruff_cache/", "Ruff keeps its cache there (jobs `format`, `lint`)"],
	["__pycache__/", "Python writes the bytecode of the modules it imports there (job `test`)"],
	[".venv/", "`uv run` creates the project's environment there (jobs `format`, `lint`, `typecheck`, `test`)"],
];

describe("setup proposes the .gitignore lines the jobs need", () => {
	test("a Python project without a .gitignore: every folder its jobs write, each with its reason, in the data and the text", async () => {
		const r = await repo(PYTHON);
		const result = await setup(r.ctx(), {});
		expect(result.data?.ignores.map((ignore) => [ignore.line, ignore.reason])).toEqual(ALL_LINES);
		expect(result.data?.files).toContainEqual({ path: ".gitignore", action: "create", reason: "5 lines for the folders the jobs write" });
		expect(result.message).toStartWith("Would write discern.toml and add 5 lines to .gitignore.");
		expect(result.plan).toContainEqual({ kind: "write", label: ".gitignore", disposition: "run", note: "5 lines for the folders the jobs write" });
		const text = renderSetup(result, { color: false, verbose: false });
		expect(text).toContain("ignore .pytest_cache/    # pytest keeps its cache there (job `test`)");
		expect(text).toContain("create .gitignore    # 5 lines for the folders the jobs write");
		expect(await Bun.file(join(r.root, ".gitignore")).exists()).toBe(false);
	});

	test("--confirmed creates .gitignore with the lines; then git ignores them and nothing more is proposed", async () => {
		const r = await repo(PYTHON);
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok).toBe(true);
		expect(result.message).toStartWith(
			"Wrote discern.toml and docs/map/README.md. Added 5 lines to .gitignore (.pytest_cache/ .mypy_cache/ .ruff_cache/ __pycache__/ .venv/).",
		);
		expect(await Bun.file(join(r.root, ".gitignore")).text()).toBe(`${[HEADER, ...ALL_LINES.map(([line]) => line)].join("\n")}\n`);
		const again = await setup(r.ctx(), {});
		expect(again.data?.ignores).toEqual([]);
		expect(again.data?.files.map((file) => file.path)).not.toContain(".gitignore");
	});

	test("the lines are what the gate needs: what those tools leave behind, with them committed, is no change to the tree; without them it is", async () => {
		// What pytest, mypy, Ruff and Python leave in a project, written by the jobs themselves (no Python tool is promised here).
		const leaves = [".pytest_cache", ".mypy_cache", ".ruff_cache"]
			.map((dir) => `mkdir -p ${dir}/v && printf '*\\n' > ${dir}/.gitignore && : > ${dir}/v/cache`)
			.join(" && ");
		const jobs = `[jobs]\ntest = ${JSON.stringify(`${leaves} && mkdir -p __pycache__ && : > __pycache__/inventory.cpython-311.pyc`)}\n`;
		const r = await repo(PYTHON);
		expect((await setup(r.ctx(), { confirmed: true })).ok).toBe(true);
		await r.write("discern.toml", jobs);
		await r.commitAll("adopt discern, the jobs standing in for the tools");
		expect((await done(r.ctx({ env: { PATH: process.env.PATH } }), {})).ok).toBe(true);

		const bare = await repo(PYTHON);
		await bare.write("discern.toml", jobs);
		await bare.commitAll("the same jobs, no ignore lines");
		const red = await done(bare.ctx({ env: { PATH: process.env.PATH } }), {});
		expect(red.ok ? "" : red.message).toContain("The test stage changed the tree");
	});

	test("what the .gitignore files already ignore is not proposed: a folder rule, with or without its slashes, a `*.pyc` rule", async () => {
		const r = await repo({ ...PYTHON, ".gitignore": "/.venv\n*.py[cod]\n.mypy_cache\n" });
		const result = await setup(r.ctx(), {});
		expect(result.data?.ignores.map((ignore) => ignore.line)).toEqual([".pytest_cache/", ".ruff_cache/"]);
		expect(result.data?.files).toContainEqual({
			path: ".gitignore",
			action: "append",
			reason: "2 lines for the folders the jobs write; nothing already there changes",
		});
	});

	test("rules that are not the repository's do not count: info/exclude, a global excludes file, a tool's own .gitignore in its cache", async () => {
		const r = await repo(PYTHON);
		await writeFile(join(r.root, ".git/info/exclude"), ".venv/\n");
		const global = join(await makeTempDir(), "global-ignore");
		dirs.push(join(global, ".."));
		await writeFile(global, ".mypy_cache/\n");
		await r.git("config", "core.excludesFile", global);
		// pytest ran once before: its cache folder ignores itself, which the gate counts as rules git reads that are not committed.
		await mkdir(join(r.root, ".pytest_cache"));
		await writeFile(join(r.root, ".pytest_cache/.gitignore"), "# Created by pytest automatically.\n*\n");
		const result = await setup(r.ctx(), {});
		expect(result.data?.ignores.map((ignore) => ignore.line)).toEqual(ALL_LINES.map(([line]) => line));
	});

	test("a project in a sub-folder: its jobs by name; a line only it needs anchored to it", async () => {
		const r = await repo({
			"service/pyproject.toml": '[project]\nname = "svc"\n[tool.pytest.ini_options]\naddopts = "-q"\n',
			"engine/Cargo.toml": '[package]\nname = "engine"\nversion = "0.1.0"\n',
		});
		const result = await setup(r.ctx(), {});
		expect(result.data?.ignores).toEqual([
			{ line: "/engine/target/", reason: "cargo builds into it (jobs `lint_engine`, `test_engine`)" },
			{ line: ".pytest_cache/", reason: "pytest keeps its cache there (job `test_service`)" },
			{ line: "__pycache__/", reason: "Python writes the bytecode of the modules it imports there (job `test_service`)" },
		]);
		// The project's own .gitignore covers its folder.
		await r.write("service/.gitignore", ".pytest_cache/\n__pycache__/\n");
		expect((await setup(r.ctx(), {})).data?.ignores.map((ignore) => ignore.line)).toEqual(["/engine/target/"]);
	});

	test("a folder's name is written as .gitignore takes it literally, and one no line can hold gets no line (a newline would start a rule of its own)", async () => {
		const r = await repo({
			"a*b/Cargo.toml": '[package]\nname = "glob"\nversion = "0.1.0"\n',
			"x\n*\n!y/Cargo.toml": '[package]\nname = "inject"\nversion = "0.1.0"\n',
		});
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.data?.ignores.map((ignore) => ignore.line)).toEqual(["/a\\*b/target/"]);
		const written = await Bun.file(join(r.root, ".gitignore")).text();
		expect(written.split("\n")).not.toContain("*");
		// git reads the line as that one folder: a file elsewhere is not ignored by it.
		expect(
			await r.git("check-ignore", "--no-index", "-q", "a*b/target/x").then(
				() => true,
				() => false,
			),
		).toBe(true);
		expect(
			await r.git("check-ignore", "--no-index", "-q", "aXb/target/x").then(
				() => true,
				() => false,
			),
		).toBe(false);
	});

	test("node_modules when the manager installs there, at the root and in workspace packages; not with Yarn's Plug'n'Play", async () => {
		const workspace = {
			"package.json": JSON.stringify({ workspaces: ["packages/*"], scripts: { test: "vitest" } }),
			"pnpm-lock.yaml": "",
			"packages/a/package.json": "{}",
		};
		const ignored = async (files: Record<string, string>) => (await setup((await repo(files)).ctx(), {})).data?.ignores.map((ignore) => ignore.line);
		expect(await ignored(workspace)).toEqual(["node_modules/"]);
		expect(await ignored({ ...workspace, ".gitignore": "/node_modules/\n" })).toEqual(["node_modules/"]);
		expect(await ignored({ ...workspace, ".gitignore": "node_modules\n" })).toEqual([]);
		const yarn = { "package.json": JSON.stringify({ scripts: { test: "jest" } }), "yarn.lock": "" };
		expect(await ignored(yarn)).toEqual(["node_modules/"]);
		expect(await ignored({ ...yarn, ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.cjs\n" })).toEqual([]);
		expect(await ignored({ ...yarn, ".yarnrc.yml": "nodeLinker: node-modules\n" })).toEqual(["node_modules/"]);
		// No job, nothing its jobs need.
		expect(await ignored({ "package.json": "{}" })).toEqual([]);
	});

	test("--confirmed appends to an existing .gitignore: every byte kept, its CRLF line endings, a newline after a last line without one", async () => {
		const r = await repo(PYTHON);
		const before = "# build\r\n/dist\r\n*.py[cod]\r\n.venv";
		await writeFile(join(r.root, ".gitignore"), before);
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok).toBe(true);
		expect(await Bun.file(join(r.root, ".gitignore")).text()).toBe(`${before}\r\n\r\n${HEADER}\r\n.pytest_cache/\r\n.mypy_cache/\r\n.ruff_cache/\r\n`);
	});

	test("with discern.toml already there, --confirmed still adds the missing lines", async () => {
		const r = await repo({ ...PYTHON, "discern.toml": '[jobs]\ntest = "uv run pytest"\n', "docs/map/README.md": "# map\n", ".gitignore": "node_modules/\n" });
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok).toBe(true);
		expect(result.message).toStartWith("Added 5 lines to .gitignore (");
		expect(await Bun.file(join(r.root, ".gitignore")).text()).toStartWith(`node_modules/\n\n${HEADER}\n.pytest_cache/\n`);
	});

	test("a .gitignore that is a link is left alone, and the lines are shown to add by hand", async () => {
		const r = await repo({ ...PYTHON, "shared-ignore": "" });
		await symlink("shared-ignore", join(r.root, ".gitignore"));
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok).toBe(true);
		expect(result.data?.ignores).toHaveLength(5);
		expect(result.data?.files).toContainEqual({
			path: ".gitignore",
			action: "keep",
			reason: ".gitignore is not a regular file of at most 1 MiB, so setup does not add to it: add the 5 lines shown by hand",
		});
		expect(await Bun.file(join(r.root, "shared-ignore")).text()).toBe("");
	});
});

describe("setup verify lists the missing .gitignore lines as advice", () => {
	test("a configured Python project whose .gitignore lacks them: verify passes and lists each line with its reason", async () => {
		const r = await repo({
			...PYTHON,
			"discern.toml": '[jobs]\nformat = "true"\nlint = "true"\ntypecheck = "true"\ntest = "true"\n',
			".gitignore": ".venv/\n__pycache__/\n",
		});
		const result = await verifySetup(r.ctx(), {});
		expect(result.ok).toBe(true);
		expect(result.message).toContain("Setup would also propose");
		expect(result.data?.verify?.also_proposed.filter((item) => item.kind === "ignore")).toEqual([
			{ kind: "ignore", name: ".pytest_cache/", line: ".pytest_cache/", reason: "pytest keeps its cache there (job `test`)" },
			{ kind: "ignore", name: ".mypy_cache/", line: ".mypy_cache/", reason: "mypy keeps its cache there (job `typecheck`)" },
			{ kind: "ignore", name: ".ruff_cache/", line: ".ruff_cache/", reason: "Ruff keeps its cache there (jobs `format`, `lint`)" },
		]);
		expect(renderSetup(result, { color: false, verbose: false })).toContain(
			"setup would also add `.pytest_cache/` to .gitignore: pytest keeps its cache there (job `test`)",
		);
	});
});

describe("appendedIgnoreFile keeps every byte", () => {
	const appended = (before: string | null) =>
		Buffer.from(appendedIgnoreFile(before === null ? null : Buffer.from(before, "latin1"), ["a/", "b/"])).toString("latin1");
	test.each([
		["absent", null, `${HEADER}\na/\nb/\n`],
		["empty", "", `${HEADER}\na/\nb/\n`],
		["ending in a newline", "x\n", `x\n\n${HEADER}\na/\nb/\n`],
		["without a last newline", "x", `x\n\n${HEADER}\na/\nb/\n`],
		["CRLF", "x\r\ny\r\n", `x\r\ny\r\n\r\n${HEADER}\r\na/\r\nb/\r\n`],
		["bytes that are not UTF-8", "\xff\xfe", `\xff\xfe\n\n${HEADER}\na/\nb/\n`],
	])("%s", (_label, before, after) => {
		expect(appended(before)).toBe(after);
	});
});
