import { afterEach, describe, expect, test } from "bun:test";
import { lstat, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import * as v from "valibot";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { renderStart } from "../../src/verbs/start/render.ts";
import type { StartData } from "../../src/verbs/start/schema.ts";
import { startVerb } from "../../src/verbs/start/verb.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, makeTempDir, runGit, type TestRepo } from "../helpers/repo.ts";

const made: string[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A repository ignoring the usual build folders, with `[worktree].seed` and any further config. */
async function seededRepo(seed: readonly string[], more = ""): Promise<TestRepo> {
	const r = await makeRepo({
		config: `[jobs]\ntest = "true"\n[worktree]\nseed = ${JSON.stringify(seed)}\n${more}`,
		files: { ".gitignore": "node_modules/\ntarget/\n.venv/\nenvs/\ncache/\n", "src/index.js": "export {};\n", "vendor/lib.js": "// vendored\n" },
	});
	made.push(r.root, `${r.root}.worktrees`);
	return r;
}

/** A small node_modules: a package, its bin linked relatively from .bin, an executable file. */
async function nodeModules(root: string): Promise<void> {
	await mkdir(join(root, "node_modules", "left-pad", "bin"), { recursive: true });
	await writeFile(join(root, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
	await writeFile(join(root, "node_modules", "left-pad", "bin", "pad.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
	await mkdir(join(root, "node_modules", ".bin"));
	await symlink("../left-pad/bin/pad.js", join(root, "node_modules", ".bin", "pad"));
}

async function started(r: TestRepo, input: Record<string, unknown> = { name: "seed" }): Promise<{ result: AnyResult; data: StartData }> {
	const result = await invokeVerb("start", r.ctx(), input);
	v.parse(startVerb.envelope, result);
	return { result, data: result.data as StartData };
}

/** What discern left in a folder that is not the checkout's: a seed's temporary copy would show here. */
async function temporaries(folder: string): Promise<string[]> {
	return (await readdir(folder)).filter((name) => name.includes("discern-seed"));
}

const there = (path: string) =>
	lstat(path).then(
		() => true,
		() => false,
	);

describe("start: [worktree].seed", () => {
	test("a seeded node_modules arrives with its content, modes and relative links, before the setup steps run", async () => {
		const r = await seededRepo(["node_modules"], '[worktree.setup]\nensure = ["test -x node_modules/.bin/pad && echo seen > ensure.txt"]\n');
		await nodeModules(r.root);
		const events: string[] = [];
		const result = await invokeVerb("start", r.ctx({ progress: (event) => events.push(`${event.type} ${event.label}`) }), { name: "seed" });
		v.parse(startVerb.envelope, result);
		const data = result.data as StartData;
		expect(result.ok).toBe(true);
		expect(data.seeds).toEqual([{ path: "node_modules", outcome: "copied" }]);
		expect(events).toEqual(["start seed node_modules", "finish seed node_modules", "start ensure 1", "finish ensure 1"]);
		expect(result.steps?.map((step) => [step.label, step.outcome])).toEqual([
			["seed node_modules", "ok"],
			["ensure 1", "ok"],
		]);
		expect(await readFile(join(data.path, "node_modules", "left-pad", "index.js"), "utf8")).toBe("module.exports = 1;\n");
		expect(await readlink(join(data.path, "node_modules", ".bin", "pad"))).toBe("../left-pad/bin/pad.js");
		expect((await stat(join(data.path, "node_modules", "left-pad", "bin", "pad.js"))).mode & 0o777).toBe(0o755);
		expect(await readFile(join(data.path, "ensure.txt"), "utf8")).toBe("seen\n");
		expect(await temporaries(data.path)).toEqual([]);
		// A copy, not a link to the main checkout's folder.
		expect((await lstat(join(data.path, "node_modules"))).isSymbolicLink()).toBe(false);
		expect((await r.git("status", "--porcelain")).trim()).toBe("");
	});

	test("a nested seed (packages/web/node_modules) lands at the same relative path", async () => {
		const r = await seededRepo(["packages/web/node_modules/"]);
		await r.write("packages/web/package.json", "{}\n");
		await r.commitAll("web");
		await nodeModules(join(r.root, "packages", "web"));
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds).toEqual([{ path: "packages/web/node_modules", outcome: "copied" }]);
		expect(await readFile(join(data.path, "packages", "web", "node_modules", "left-pad", "index.js"), "utf8")).toBe("module.exports = 1;\n");
	});

	test("a tracked path is refused: only ignored build output is seeded", async () => {
		const r = await seededRepo(["vendor"]);
		await writeFile(join(r.root, "vendor", "local-edit.js"), "// not committed\n");
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.[0]).toMatchObject({ path: "vendor", outcome: "refused" });
		expect(data.seeds?.[0]?.why).toContain("does not ignore");
		expect(await readdir(join(data.path, "vendor"))).toEqual(["lib.js"]);
		expect(result.steps?.map((step) => [step.label, step.outcome])).toEqual([["seed vendor", "skipped"]]);
		expect(result.hints?.some((hint) => hint.includes("Not seeded") && hint.includes("vendor"))).toBe(true);
	});

	test("a Python venv is refused, at the seed or one level down (pyvenv.cfg)", async () => {
		const r = await seededRepo([".venv", "envs"]);
		await mkdir(join(r.root, ".venv", "bin"), { recursive: true });
		await writeFile(join(r.root, ".venv", "pyvenv.cfg"), `home = /usr/bin\n`);
		await writeFile(join(r.root, ".venv", "bin", "activate"), `VIRTUAL_ENV="${r.root}/.venv"\n`);
		await mkdir(join(r.root, "envs", "py312"), { recursive: true });
		await writeFile(join(r.root, "envs", "py312", "pyvenv.cfg"), "home = /usr/bin\n");
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.map((seed) => [seed.path, seed.outcome])).toEqual([
			[".venv", "refused"],
			["envs", "refused"],
		]);
		expect(data.seeds?.every((seed) => seed.why?.includes("venv"))).toBe(true);
		expect(await there(join(data.path, ".venv"))).toBe(false);
		expect(await there(join(data.path, "envs"))).toBe(false);
	});

	test("an absolute link into the main checkout refuses that seed and leaves nothing behind; the next seed still arrives", async () => {
		const r = await seededRepo(["node_modules", "target"]);
		await nodeModules(r.root);
		await symlink(join(r.root, "src", "index.js"), join(r.root, "node_modules", "left-pad", "linked.js"));
		await mkdir(join(r.root, "target", "debug"), { recursive: true });
		await writeFile(join(r.root, "target", "debug", "app"), "binary");
		// An absolute link elsewhere is fine: it does not lead back to the main checkout.
		await symlink("/usr/bin/env", join(r.root, "target", "env"));
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.map((seed) => [seed.path, seed.outcome])).toEqual([
			["node_modules", "refused"],
			["target", "copied"],
		]);
		expect(data.seeds?.[0]?.why).toContain("left-pad/linked.js");
		expect(await there(join(data.path, "node_modules"))).toBe(false);
		expect(await temporaries(data.path)).toEqual([]);
		expect(await readFile(join(data.path, "target", "debug", "app"), "utf8")).toBe("binary");
		expect(await readlink(join(data.path, "target", "env"))).toBe("/usr/bin/env");
		expect(renderStart(result as never, { color: false, verbose: false } as never)).toContain(
			"seed node_modules: the link left-pad/linked.js points into the main checkout",
		);
	});

	test("an absolute link into the main checkout through another name for its folder is refused too", async () => {
		const r = await seededRepo(["node_modules"]);
		await nodeModules(r.root);
		const alias = `${r.root}-alias`;
		await symlink(r.root, alias);
		made.push(alias);
		await symlink(join(alias, "src", "index.js"), join(r.root, "node_modules", "left-pad", "aliased.js"));
		const { data } = await started(r);
		expect(data.seeds?.[0]).toMatchObject({ path: "node_modules", outcome: "refused" });
		expect(await there(join(data.path, "node_modules"))).toBe(false);
	});

	test("an interrupt during the seeds rolls the whole start back: no worktree, no copy, no branch", async () => {
		const r = await seededRepo(["node_modules"], '[worktree.setup]\nensure = ["true"]\n');
		await nodeModules(r.root);
		const controller = new AbortController();
		const ctx = r.ctx({ signal: controller.signal, progress: (event) => event.label === "seed node_modules" && controller.abort() });
		const result = await invokeVerb("start", ctx, { name: "cut" });
		v.parse(startVerb.envelope, result);
		expect(result.ok ? null : result.error).toBe("interrupted");
		expect((result.data as StartData).left_behind).toEqual([]);
		expect(await there(`${r.root}.worktrees`)).toBe(false);
		expect((await r.git("for-each-ref", "--format=%(refname:short)", "refs/heads/")).trim()).toBe("main");
	});

	test("a nested git repository in a seed refuses it", async () => {
		const r = await seededRepo(["cache"]);
		await mkdir(join(r.root, "cache", "clone", ".git"), { recursive: true });
		await writeFile(join(r.root, "cache", "clone", "file"), "x");
		const { data } = await started(r);
		expect(data.seeds?.[0]).toMatchObject({ path: "cache", outcome: "refused" });
		expect(data.seeds?.[0]?.why).toContain("nested git repository");
		expect(await there(join(data.path, "cache"))).toBe(false);
		expect(await temporaries(data.path)).toEqual([]);
	});

	test("a venv deeper down (.pixi/envs/default, pyvenv.cfg) refuses the seed: its editable .pth would make the worktree import the main checkout's code", async () => {
		const r = await seededRepo([".pixi"], "");
		await writeFile(join(r.root, ".gitignore"), ".pixi/\n");
		await r.commitAll("ignore .pixi");
		const env = join(r.root, ".pixi", "envs", "default");
		await mkdir(join(env, "lib", "python3.12", "site-packages"), { recursive: true });
		await writeFile(join(env, "pyvenv.cfg"), "home = /usr/bin\n");
		await writeFile(join(env, "lib", "python3.12", "site-packages", "_editable_proj.pth"), `${r.root}/src\n`);
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.[0]).toMatchObject({ path: ".pixi", outcome: "refused" });
		expect(data.seeds?.[0]?.why).toContain("envs/default/pyvenv.cfg");
		expect(await there(join(data.path, ".pixi"))).toBe(false);
	});

	test("a conda or pixi environment at any depth (conda-meta) refuses the seed", async () => {
		const r = await seededRepo(["cache"]);
		const env = join(r.root, "cache", "pixi", "envs", "default");
		await mkdir(join(env, "conda-meta"), { recursive: true });
		await writeFile(join(env, "conda-meta", "history"), "==> 2026-01-01 <==\n");
		await mkdir(join(env, "bin"));
		await writeFile(join(env, "bin", "python"), `#!${env}/bin/python3\n`);
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.[0]).toMatchObject({ path: "cache", outcome: "refused" });
		expect(data.seeds?.[0]?.why).toContain("conda");
		expect(await there(join(data.path, "cache"))).toBe(false);
	});

	test("the repository's own git folder kept in the checkout (--separate-git-dir, ignored) is refused, never copied", async () => {
		const r = await seededRepo(["gd"]);
		await writeFile(join(r.root, ".gitignore"), "gd/\n");
		// Moves .git to gd and leaves a .git file naming it: the layout `git init --separate-git-dir=gd` makes.
		await r.git("init", "-q", "--separate-git-dir", join(r.root, "gd"));
		await r.commitAll("ignore gd");
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.[0]).toMatchObject({ path: "gd", outcome: "refused" });
		expect(data.seeds?.[0]?.why).toContain("the repository's git folder");
		expect(await there(join(data.path, "gd"))).toBe(false);
		const plan = await invokeVerb("start", r.ctx(), { name: "plan", dry_run: true });
		expect(plan.plan?.find((item) => item.kind === "seed")).toMatchObject({ label: "gd", disposition: "skip" });
	});

	test("a folder holding another worktree of the repository is refused as such", async () => {
		const r = await seededRepo(["cache"]);
		await r.git("worktree", "add", "-q", "-b", "other", join(r.root, "cache", "other"));
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.[0]).toMatchObject({ path: "cache", outcome: "refused" });
		expect(data.seeds?.[0]?.why).toContain("a worktree of this repository");
		expect(await there(join(data.path, "cache"))).toBe(false);
	});

	test("the copy is made in the new worktree's git admin dir, never beside the seed inside the worktree", async () => {
		const r = await seededRepo(["node_modules"]);
		await nodeModules(r.root);
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds).toEqual([{ path: "node_modules", outcome: "copied" }]);
		// The admin dir's copy folder is left empty once the copy is renamed into place.
		const gitDir = (await runGit(data.path, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim();
		expect(await readdir(join(gitDir, "discern", "seeding"))).toEqual([]);
		expect(await temporaries(data.path)).toEqual([]);
	});

	test("a seed missing from the main checkout is skipped quietly", async () => {
		const r = await seededRepo(["node_modules", "target"]);
		await nodeModules(r.root);
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds).toEqual([
			{ path: "node_modules", outcome: "copied" },
			{ path: "target", outcome: "missing", why: "not there in the main checkout" },
		]);
		expect(result.steps?.map((step) => [step.label, step.outcome])).toEqual([
			["seed node_modules", "ok"],
			["seed target", "skipped"],
		]);
		// Nothing to act on: no hint about it.
		expect(result.hints?.some((hint) => hint.includes("Not seeded"))).toBe(false);
	});

	test("a path leaving the checkout (`..`, absolute, through a symlink) is refused and nothing outside is read", async () => {
		const r = await seededRepo([]);
		const outside = `${r.root}-outside`;
		const seed = [`../${basename(outside)}`, "/etc", "linked/node_modules", `node_modules/../../${basename(outside)}`];
		await r.write("discern.toml", `[worktree]\nseed = ${JSON.stringify(seed)}\n`);
		await r.commitAll("seeds");
		await mkdir(outside);
		made.push(outside);
		await writeFile(join(outside, "secret"), "x");
		const elsewhere = await makeTempDir("discern-seed-elsewhere-");
		made.push(elsewhere);
		await mkdir(join(elsewhere, "node_modules"));
		await symlink(elsewhere, join(r.root, "linked"));
		await writeFile(join(r.root, ".git", "info", "exclude"), "linked\n");
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.map((seed) => seed.outcome)).toEqual(["refused", "refused", "refused", "refused"]);
		expect(data.seeds?.[2]?.why).toContain("symlink");
		expect(await there(join(dirname(data.path), basename(outside)))).toBe(false);
		expect(await there(join(data.path, "linked"))).toBe(false);
		expect((await readdir(data.path)).sort()).toEqual([".git", ".gitignore", "discern.toml", "src", "vendor"]);
	});

	test("something already at the path in the worktree is never overwritten", async () => {
		const r = await seededRepo(["cache"], '[worktree.resources.cache]\ncreate = "mkdir cache && echo from-resource > cache/own.txt"\ndestroy = "true"\n');
		await mkdir(join(r.root, "cache"));
		await writeFile(join(r.root, "cache", "main.txt"), "from main");
		const { result, data } = await started(r);
		expect(result.ok).toBe(true);
		expect(data.seeds?.[0]).toMatchObject({ path: "cache", outcome: "present" });
		expect(await readdir(join(data.path, "cache"))).toEqual(["own.txt"]);
		expect(await temporaries(data.path)).toEqual([]);
	});

	test("--dry-run lists each seed in its plan, after the resources and before the setup steps, and copies nothing", async () => {
		const r = await seededRepo(
			["node_modules", "target", "vendor"],
			'[worktree.setup]\nensure = ["npm install"]\n[worktree.resources.db]\ncreate = "true"\ndestroy = "true"\n',
		);
		await nodeModules(r.root);
		const { result } = await started(r, { name: "plan", dry_run: true });
		expect(result.ok).toBe(true);
		expect(result.plan?.map((item) => [item.kind, item.label, item.disposition])).toEqual([
			["branch", (result.data as StartData).branch, "run"],
			["worktree", (result.data as StartData).path, "run"],
			["resource", "db", "run"],
			["seed", "node_modules", "run"],
			["seed", "target", "skip"],
			["seed", "vendor", "skip"],
			["ensure", "ensure 1", "run"],
		]);
		expect(result.plan?.find((item) => item.label === "target")?.note).toBe("not there in the main checkout");
		expect(await there(`${r.root}.worktrees`)).toBe(false);
	});

	test("a start that fails after seeding takes the seeded folders with its worktree", async () => {
		const r = await seededRepo(["node_modules"], '[worktree.setup]\nensure = ["exit 3"]\n');
		await nodeModules(r.root);
		const { result, data } = await started(r);
		expect(result.ok ? null : result.error).toBe("gate_failed");
		expect(data.seeds).toEqual([{ path: "node_modules", outcome: "copied" }]);
		expect(data.left_behind).toEqual([]);
		expect(await readdir(dirname(r.root))).not.toContain(`${basename(r.root)}.worktrees`);
		// The main checkout's own folder is untouched.
		expect(await readFile(join(r.root, "node_modules", "left-pad", "index.js"), "utf8")).toBe("module.exports = 1;\n");
	});
});
