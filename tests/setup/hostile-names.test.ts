import { afterEach, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * A repository's names end up in the discern.toml setup writes (the
 * detected stacks' files, folders, packages): whatever they hold, the file
 * reads back as exactly what was proposed, and the text shows each on one line.
 */

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});

const ROOT_PACKAGE = JSON.stringify({ name: "root", version: "1.0.0", scripts: { test: "node -e 0" } });

test("a folder whose name holds a line break and a TOML line adds no job, and the file parses", async () => {
	const folder = 'z\nlint = "touch PLANTED"  #';
	const r = await makeRepo({ files: { "package.json": ROOT_PACKAGE, "package-lock.json": "{}\n" }, commit: false });
	made.push(r);
	await mkdir(join(r.root, folder));
	await writeFile(join(r.root, folder, "package.json"), JSON.stringify({ name: "sub", version: "1.0.0", scripts: { test: "node -e 0" } }));
	await r.commitAll("init");

	const text = await runDiscern(["setup"], { cwd: r.root });
	expect(text.stdout).not.toContain('\nlint = "touch PLANTED"');

	const run = await runDiscern(["setup", "--confirmed", "--json"], { cwd: r.root });
	expect(onlyJson(run.stdout).ok).toBe(true);
	const written = await readFile(join(r.root, "discern.toml"), "utf8");
	const parsed = parseConfig(written);
	if (!parsed.ok) throw new Error(`discern.toml does not parse: ${JSON.stringify(parsed.issues)}`);
	expect(Object.keys(parsed.config.jobs).some((name) => name === "lint")).toBe(false);
	expect(written).not.toMatch(/^lint = "touch PLANTED"/m);
});

test("control characters in a folder's name leave the file parseable", async () => {
	const r = await makeRepo({ files: { "package.json": ROOT_PACKAGE, "package-lock.json": "{}\n" }, commit: false });
	made.push(r);
	const folder = "del\u007fx\u001b[31m";
	await mkdir(join(r.root, folder));
	await writeFile(join(r.root, folder, "package.json"), JSON.stringify({ name: "sub", version: "1.0.0", scripts: { test: "node -e 0" } }));
	await r.commitAll("init");
	const run = await runDiscern(["setup", "--confirmed", "--json"], { cwd: r.root });
	expect(onlyJson(run.stdout).ok).toBe(true);
	expect(parseConfig(await readFile(join(r.root, "discern.toml"), "utf8")).ok).toBe(true);
});

test("a folder named with glob syntax gets a scope that covers exactly it", async () => {
	const { compileGlob, folderGlob } = await import("../../src/scopes/glob.ts");
	for (const folder of ["a[b]", "x*y", "q?", "br{a,b}ce", "c]d", "pkgs/[core]"]) {
		const pattern = folderGlob(folder);
		if (pattern === null) throw new Error(`no pattern for ${folder}`);
		const test = compileGlob(pattern);
		expect(test(`${folder}/src/index.ts`)).toBe(true);
		expect(test(`${folder.replace(/[[\]*?{},]/g, "_")}x/src/index.ts`)).toBe(false);
	}
	expect(folderGlob("back\\slash")).toBeNull();
});

test("a project in an untracked or ignored folder is not proposed: a new worktree does not have it", async () => {
	const r = await makeRepo({ files: { "package.json": ROOT_PACKAGE, "package-lock.json": "{}\n", ".gitignore": "ignored-tool/\n" }, commit: false });
	made.push(r);
	for (const folder of ["scratch", "ignored-tool", "svc"]) {
		await mkdir(join(r.root, folder));
		await writeFile(join(r.root, folder, "pyproject.toml"), '[project]\nname = "x"\n[tool.pytest.ini_options]\n');
		await writeFile(join(r.root, folder, "uv.lock"), "");
	}
	await r.git("add", "package.json", "package-lock.json", ".gitignore", "svc");
	await r.git("commit", "-q", "-m", "init");
	const run = await runDiscern(["setup", "--json"], { cwd: r.root });
	const data = onlyJson(run.stdout).data as { jobs: { name: string; run: string }[]; installs: { run: string }[] };
	expect(data.jobs.map((job) => job.run).filter((command) => command.startsWith("cd "))).toEqual(["cd svc && uv run pytest"]);
	expect(data.installs.map((install) => install.run)).toEqual(["cd svc && uv sync --locked"]);
});

test("a lockfile git does not track is not in a new worktree: no frozen install is proposed from it", async () => {
	const manifest = JSON.stringify({ name: "lib", version: "1.0.0", scripts: { test: "vitest run" }, devDependencies: { vitest: "^3.0.0" } });
	const r = await makeRepo({
		files: {
			"package.json": manifest,
			"package-lock.json": "{}\n",
			".gitignore": "package-lock.json\nCargo.lock\n",
			"Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n',
			"Cargo.lock": "",
		},
	});
	made.push(r);
	const data = onlyJson((await runDiscern(["setup", "--json"], { cwd: r.root })).stdout).data as { installs: { run: string; reason: string }[] };
	expect(data.installs.map((install) => install.run)).toEqual(["npm install"]);
	expect(data.installs[0]?.reason).toContain("package-lock.json is not tracked by git");
});
