import { afterEach, describe, expect, test } from "bun:test";
import { readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import * as v from "valibot";
import type { StartData } from "../../src/verbs/start/schema.ts";
import { start } from "../../src/verbs/start/start.ts";
import { startVerb } from "../../src/verbs/start/verb.ts";
import { parseDotenv } from "../../src/worktree/env.ts";
import { slugify, worktreeId, worktreePort } from "../../src/worktree/id.ts";
import { ledgerPath, readLedger } from "../../src/worktree/ledger.ts";
import { destroyResources } from "../../src/worktree/resources.ts";
import { readTask } from "../../src/worktree/task.ts";
import { expandTokens, tokenTable, unknownTokens } from "../../src/worktree/tokens.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

const made: string[] = [];
async function repo(config: string, files?: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ config, ...(files ? { files } : {}) });
	made.push(r.root, `${r.root}.worktrees`);
	return r;
}
async function tempDir(): Promise<string> {
	const dir = await makeTempDir("discern-start-");
	made.push(dir);
	return dir;
}
afterEach(async () => {
	await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const fixedTail = (tail: string) => ({ tail: () => tail });

async function branches(r: TestRepo): Promise<string[]> {
	return (await r.git("for-each-ref", "--format=%(refname:short)", "refs/heads/")).split("\n").filter(Boolean);
}
async function worktrees(r: TestRepo): Promise<number> {
	return (await r.git("worktree", "list", "--porcelain")).split("\n").filter((line) => line.startsWith("worktree ")).length;
}
async function lines(path: string): Promise<string[]> {
	return (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);
}

/** A config whose resources and steps write what they do to `log`. */
function loggingConfig(log: string, options: { failStep?: boolean; failCreate?: string } = {}): string {
	const resource = (name: string) =>
		`[worktree.resources.${name}]\ncreate = "${options.failCreate === name ? "echo create-fails; exit 3" : `echo create ${name} @db@ >> ${log}`}"\ndestroy = "echo destroy ${name} >> ${log}"\n`;
	return [
		'[jobs]\ntest = "true"\n',
		'[worktree]\ninherit_env = ["START_TEST_INHERITED", "FROM_ENV_FILE"]\n',
		`[worktree.setup]\nsteps = ["echo $DISCERN_WORKTREE_PORT > port.txt", "echo $DISCERN_WORKTREE_ID:$START_TEST_INHERITED:$FROM_ENV_FILE:$API_KEY > env.txt"${options.failStep ? ', "echo broken step; exit 7"' : ""}]\n`,
		resource("db"),
		resource("cache"),
	].join("\n");
}

describe("worktree ids, ports and tokens", () => {
	test("ids are slugs plus a 6-hex tail; ports are stable", () => {
		expect(slugify("  Fix the LOGIN -- redirect!! ")).toBe("fix-the-login-redirect");
		expect(worktreeId({ name: "$(touch pwned)" }, () => "abcdef")).toBe("touch-pwned-abcdef");
		expect(worktreeId({ title: "-x; rm -rf /" }, () => "abcdef")).toBe("x-rm-rf-abcdef");
		expect(worktreeId({}, () => "012345")).toMatch(/^[a-z]+-[a-z]+-012345$/);
		expect(worktreeId({ title: "a".repeat(90) }, () => "012345")).toBe(`${"a".repeat(40)}-012345`);
		expect(worktreePort("fix-abcdef")).toBe(worktreePort("fix-abcdef"));
		expect(worktreePort("fix-abcdef")).toBeGreaterThanOrEqual(17290);
		expect(worktreePort("fix-abcdef")).toBeLessThan(19290);
	});

	test("tokens expand shell-safely; unknown ones are found", () => {
		const table = tokenTable({ id: "fix-abcdef", port: 17300, projectName: "My App", repositoryRoot: "/r", dir: "/tmp/it's here" });
		expect(expandTokens("createdb @db@ -p @port@ @project_slug@ @dir@ @worktree@", table)).toBe(
			"createdb fix_abcdef -p 17300 my-app '/tmp/it'\\''s here' fix-abcdef",
		);
		expect(unknownTokens("echo @db@ @nope@ a@b.c")).toEqual(["nope"]);
	});

	test("dotenv lines", () => {
		expect(parseDotenv("# c\nA=1\nexport B='x y'\nC=\"q\\nr\"\nD=bare # note\nnot a line\n")).toEqual({ A: "1", B: "x y", C: "q\nr", D: "bare" });
	});
});

describe("start", () => {
	test("success: worktree on its branch, task.json, ledger, env values reach the setup steps", async () => {
		const log = join(await tempDir(), "log");
		const r = await repo(loggingConfig(log));
		await writeFile(join(r.root, ".env"), "FROM_ENV_FILE=dotenv-value\nAPI_KEY=secret-not-listed\n");
		const result = await invokeVerb("start", r.ctx({ env: { PATH: process.env.PATH, START_TEST_INHERITED: "inherited" } }), {
			title: "Fix the login",
			brief: "Details.",
		});
		expect(result.ok).toBe(true);
		v.parse(startVerb.envelope, result);
		const data = result.data as StartData;
		expect(data.path).toBe(join(`${r.root}.worktrees`, data.id));
		expect(data.id).toMatch(/^fix-the-login-[0-9a-f]{6}$/);
		expect(data.branch).toBe(`agent/${data.id}`);
		expect((await runIn(data.path, ["rev-parse", "--abbrev-ref", "HEAD"])).trim()).toBe(data.branch);
		expect((await readFile(join(data.path, "port.txt"), "utf8")).trim()).toBe(String(worktreePort(data.id)));
		// Only the names inherit_env lists reach the commands: API_KEY in .env does not.
		expect((await readFile(join(data.path, "env.txt"), "utf8")).trim()).toBe(`${data.id}:inherited:dotenv-value:`);
		expect(await readFile(join(data.path, ".env"), "utf8")).toBe("FROM_ENV_FILE=dotenv-value\nAPI_KEY=secret-not-listed\n");
		const gitDir = (await runIn(data.path, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim();
		const task = await readTask(gitDir);
		expect(task).toMatchObject({
			version: 1,
			id: data.id,
			title: "Fix the login",
			brief: "Details.",
			branch: data.branch,
			base: data.base,
			from: "main",
			created_by: "discern",
		});
		const commonDir = join(r.root, ".git");
		const ledger = await readLedger(commonDir, data.id);
		expect(ledger?.entries.map((entry) => [entry.name, entry.state])).toEqual([
			["db", "created"],
			["cache", "created"],
		]);
		expect(ledger?.worktree).toBe(data.path);
		expect(await lines(log)).toEqual([`create db ${data.id.replaceAll("-", "_")}`, `create cache ${data.id.replaceAll("-", "_")}`]);

		// What accept and drop will call: reverse order, then the ledger is gone.
		const destroyed = await destroyResources(commonDir, data.id, {
			cwd: data.path,
			env: { PATH: process.env.PATH ?? "" },
			signal: new AbortController().signal,
			worktree: data.path,
		});
		expect(destroyed).toEqual({ ok: true, destroyed: ["cache", "db"], failed: [] });
		expect((await lines(log)).slice(2)).toEqual(["destroy cache", "destroy db"]);
		expect(await Bun.file(ledgerPath(commonDir, data.id)).exists()).toBe(false);
		expect(await destroyResources(commonDir, data.id, { cwd: data.path, env: {}, signal: new AbortController().signal, worktree: data.path })).toEqual({
			ok: true,
			destroyed: [],
			failed: [],
		});
	});

	test("a failing setup step rolls back everything: resources in reverse, worktree, branch, folder", async () => {
		const log = join(await tempDir(), "log");
		const r = await repo(loggingConfig(log, { failStep: true }));
		const result = await invokeVerb("start", r.ctx(), { name: "broken" });
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error).toBe("gate_failed");
		v.parse(startVerb.envelope, result);
		expect(result.message).toContain("rolled back");
		expect(result.diagnostics?.some((diagnostic) => diagnostic.output?.includes("broken step"))).toBe(true);
		const id = (result.data as StartData).id;
		const db = id.replaceAll("-", "_");
		expect(await lines(log)).toEqual([`create db ${db}`, `create cache ${db}`, "destroy cache", "destroy db"]);
		expect(await branches(r)).toEqual(["main"]);
		expect(await worktrees(r)).toBe(1);
		expect(await readdir(dirname(r.root))).not.toContain(`${basename(r.root)}.worktrees`);
		expect(await Bun.file(ledgerPath(join(r.root, ".git"), id)).exists()).toBe(false);
		expect((result.data as StartData).rolled_back).toBe(true);
	});

	test("a failing resource create rolls back the earlier resources (and tries the failed one's destroy)", async () => {
		const log = join(await tempDir(), "log");
		const r = await repo(loggingConfig(log, { failCreate: "cache" }));
		const result = await start(r.ctx(), { name: "res" }, fixedTail("00aa11"));
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error).toBe("gate_failed");
		expect(result.message).toContain("`cache`");
		expect(await lines(log)).toEqual(["create db res_00aa11", "destroy cache", "destroy db"]);
		expect(await lines(join(r.root, "port.txt"))).toEqual([]);
		expect(await branches(r)).toEqual(["main"]);
		expect(await worktrees(r)).toBe(1);
		expect((result.data as StartData).rolled_back).toBe(true);
	});

	test("refuses in a linked worktree, naming the main checkout", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		const first = await start(r.ctx(), { name: "one" }, fixedTail("111111"));
		expect(first.ok).toBe(true);
		const inside = await start(r.ctx({ cwd: (first.data as StartData).path }), { name: "two" }, fixedTail("222222"));
		expect(inside.ok).toBe(false);
		if (inside.ok) return;
		expect(inside.error).toBe("not_main_checkout");
		expect(inside.message).toContain(r.root);
	});

	test("an existing branch or folder is refused, never adopted", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await r.git("branch", "agent/taken-abcdef");
		const refused = await start(r.ctx(), { name: "taken" }, fixedTail("abcdef"));
		expect(refused.ok ? null : refused.error).toBe("write_denied");
		expect(await worktrees(r)).toBe(1);
		await r.git("branch", "-D", "agent/taken-abcdef");
		await Bun.write(join(`${r.root}.worktrees`, "taken-abcdef", "keep.txt"), "mine");
		const folder = await start(r.ctx(), { name: "taken" }, fixedTail("abcdef"));
		expect(folder.ok ? null : folder.error).toBe("write_denied");
		expect(await readFile(join(`${r.root}.worktrees`, "taken-abcdef", "keep.txt"), "utf8")).toBe("mine");
		expect(await branches(r)).toEqual(["main"]);
	});

	test("--dry-run creates nothing", async () => {
		const log = join(await tempDir(), "log");
		const r = await repo(loggingConfig(log));
		const result = await invokeVerb("start", r.ctx(), { title: "Plan only", dry_run: true });
		expect(result.ok).toBe(true);
		expect(result.dry_run).toBe(true);
		v.parse(startVerb.envelope, result);
		expect(result.plan?.map((item) => item.kind)).toEqual(["branch", "worktree", "resource", "resource", "setup_step", "setup_step"]);
		expect(await lines(log)).toEqual([]);
		expect(await branches(r)).toEqual(["main"]);
		expect(await Bun.file(`${r.root}.worktrees`).exists()).toBe(false);
	});

	test("--from starts from another ref; an unknown token or trunk is refused before anything is created", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await r.git("branch", "release");
		await r.write("later.txt", "x");
		await r.commitAll("later");
		const fromRelease = await start(r.ctx(), { name: "rel", from: "release" }, fixedTail("333333"));
		expect(fromRelease.ok).toBe(true);
		expect((fromRelease.data as StartData).base).toBe((await r.git("rev-parse", "release")).trim());

		const tokens = await repo('[worktree.resources.db]\ncreate = "createdb @nope@"\ndestroy = "dropdb @db@"\n');
		const badToken = await start(tokens.ctx(), {});
		expect(badToken.ok ? null : badToken.error).toBe("invalid_config");
		const trunkless = await repo('[repository]\ntrunk = "nowhere"\n');
		const noTrunk = await start(trunkless.ctx(), {});
		expect(noTrunk.ok ? null : noTrunk.error).toBe("no_trunk");
		expect(await branches(trunkless)).toEqual(["main"]);
	});

	test("hostile names never execute anything and yield safe ids or refusals", async () => {
		const r = await repo('[jobs]\ntest = "true"\n[worktree.setup]\nsteps = ["true"]\n');
		const named = await start(r.ctx(), { name: "$(touch pwned)", title: "`touch pwned2`" }, fixedTail("444444"));
		expect(named.ok).toBe(true);
		expect((named.data as StartData).id).toBe("touch-pwned-444444");
		const titled = await start(r.ctx(), { title: "-x; rm -rf /" }, fixedTail("555555"));
		expect((titled.data as StartData).id).toBe("x-rm-rf-555555");
		const from = await start(r.ctx(), { from: "--upload-pack=touch x" });
		expect(from.ok ? null : from.error).toBe("invalid_arguments");
		const fromRef = await start(r.ctx(), { from: "HEAD;touch x" });
		expect(fromRef.ok ? null : fromRef.error).toBe("invalid_arguments");
		for (const dir of [r.root, `${r.root}.worktrees`, (named.data as StartData).path]) {
			const names = await readdir(dir);
			expect(names.filter((name) => name.startsWith("pwned") || name === "x")).toEqual([]);
		}
	});
});

describe("start: one environment, honest rollbacks, a sane root", () => {
	test("a destroy run by `worktree drop` sees the create's env values (inherit_env from the env files, id, port)", async () => {
		const log = join(await tempDir(), "log");
		const r = await repo(
			`[jobs]\ntest = "true"\n[worktree]\ninherit_env = ["DB_HOST"]\n[worktree.resources.db]\ncreate = "echo create $DB_HOST:$DISCERN_WORKTREE_PORT:$API_KEY >> ${log}"\ndestroy = "echo destroy $DB_HOST:$DISCERN_WORKTREE_PORT:$API_KEY >> ${log}"\n`,
		);
		await writeFile(join(r.root, ".env"), "DB_HOST=from-env-file\nAPI_KEY=secret\n");
		const started = await start(r.ctx({ env: { PATH: process.env.PATH, DB_HOST: "from-process" } }), { name: "envs" }, fixedTail("e0e0e0"));
		expect(started.ok).toBe(true);
		const ledger = await readLedger(join(r.root, ".git"), "envs-e0e0e0");
		expect(ledger?.env).toMatchObject({ inherit_env: ["DB_HOST"], env_files: [".env", ".env.local"], port: worktreePort("envs-e0e0e0") });
		expect(JSON.stringify(ledger)).not.toContain("secret");
		const dropped = await invokeVerb("worktree drop", r.ctx({ env: { PATH: process.env.PATH } }), { id: "envs-e0e0e0", force: true });
		expect(dropped.ok).toBe(true);
		const port = worktreePort("envs-e0e0e0");
		expect(await lines(log)).toEqual([`create from-env-file:${port}:`, `destroy from-env-file:${port}:`]);
	});

	test("a root through a symlink, nested folders: a failed start removes the worktree, the branch and every folder it made", async () => {
		const outside = await tempDir();
		const r = await repo('[jobs]\ntest = "true"\n[worktree]\nroot = "../link/a/b/c"\n[worktree.setup]\nsteps = ["exit 4"]\n');
		await symlink(outside, join(dirname(r.root), "link"));
		made.push(join(dirname(r.root), "link"));
		const result = await start(r.ctx(), { name: "nest" }, fixedTail("abab12"));
		expect(result.ok ? null : result.error).toBe("gate_failed");
		expect((result.data as StartData).path).toBe(join(await realpath(outside), "a", "b", "c", "nest-abab12"));
		expect((result.data as StartData).left_behind).toEqual([]);
		expect(await readdir(outside)).toEqual([]);
		expect(await branches(r)).toEqual(["main"]);
		expect(await worktrees(r)).toBe(1);
	});

	test("a root inside the main checkout or at / is refused before anything is created", async () => {
		for (const root of ["wt", ".", "/"]) {
			const r = await repo(`[worktree]\nroot = "${root}"\n`);
			const result = await start(r.ctx(), { name: "in" }, fixedTail("cdcd12"));
			expect(result.ok ? null : result.error).toBe("invalid_config");
			expect(await branches(r)).toEqual(["main"]);
		}
	});

	test("an interrupt between steps rolls back and says interrupted", async () => {
		const r = await repo('[jobs]\ntest = "true"\n[worktree.setup]\nsteps = ["true", "true"]\n');
		const controller = new AbortController();
		// The first step's start event: abort right then; the start must not report success.
		const result = await start(r.ctx({ signal: controller.signal, progress: () => controller.abort() }), { name: "sig" }, fixedTail("5151a5"));
		expect(result.ok ? null : result.error).toBe("interrupted");
		expect(await branches(r)).toEqual(["main"]);
		expect(await worktrees(r)).toBe(1);
	});

	test("git's refusal is write_denied with git's own line; unicode names keep their letters", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		// A file where the worktrees' parent folder should be: git worktree add cannot create it.
		await writeFile(`${r.root}.worktrees`, "in the way");
		const result = await start(r.ctx(), { name: "x" }, fixedTail("777777"));
		expect(result.ok ? null : result.error).toBe("invalid_config");
		await rm(`${r.root}.worktrees`);
		expect(slugify("Ünïcödé")).toBe("unicode");
		const locked = await repo('[jobs]\ntest = "true"\n');
		// A file where the branch's ref folder goes: git cannot create the branch.
		await writeFile(join(locked.root, ".git", "refs", "heads", "agent"), "in the way");
		const denied = await start(locked.ctx(), { name: "y" }, fixedTail("888888"));
		expect(denied.ok ? null : denied.error).toBe("write_denied");
		expect(denied.message).toMatch(/git worktree add failed: (fatal|error):/);
		expect(denied.ok ? "" : denied.hints.join(" ")).not.toContain("Read the diagnostics");
	});
});

async function runIn(cwd: string, args: string[]): Promise<string> {
	const child = Bun.spawn(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
	const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
	return out;
}

describe("start wires the configured agents in the new worktree (SPEC §6: setup ends with refresh)", () => {
	test("ignored wiring a fresh checkout lacks is written there; the main checkout is untouched", async () => {
		const bin = await tempDir();
		await writeFile(join(bin, "discern"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
		const r = await repo('[project]\nagents = ["claude_code"]\n[jobs]\ntest = "true"\n', { ".gitignore": ".mcp.json\n.claude/\n" });
		const env = { PATH: `${bin}:${process.env.PATH ?? ""}` };
		// The trunk's own wiring, committed (AGENTS.md, CLAUDE.md) or ignored (.mcp.json).
		const wired = await invokeVerb("refresh", r.ctx({ env }));
		expect(wired.ok).toBe(true);
		await r.commitAll("wiring");
		const mainEntry = await readFile(join(r.root, ".mcp.json"), "utf8");
		const result = await start(r.ctx({ env }), { name: "wired" }, { tail: () => "abc123", running: { execPath: process.execPath, script: null } });
		expect(result.ok).toBe(true);
		const path = String(result.data?.path);
		const entry = JSON.parse(await readFile(join(path, ".mcp.json"), "utf8")) as { mcpServers: { discern: { command: string } } };
		expect(entry.mcpServers.discern.command).toBe("discern");
		expect((result.hints ?? []).some((hint) => hint.includes("not refreshed"))).toBe(false);
		expect(await readFile(join(r.root, ".mcp.json"), "utf8")).toBe(mainEntry);
	});
});
