import { afterEach, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { sealOf } from "../../src/proof/seal.ts";
import { simpleCommands } from "../../src/text/shell-words.ts";
import type { WorktreeDropData, WorktreeListData, WorktreePruneData, WorktreeTeardownData } from "../../src/verbs/worktree/schema.ts";
import { wasDropping } from "../../src/worktree/dropping.ts";
import { worktreePort } from "../../src/worktree/id.ts";
import { ensureBinary } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { processesWithCommandLine } from "../helpers/processes.ts";
import { BASIC_CONFIG, makeRepo, runGit, type TestRepo } from "../helpers/repo.ts";

const made: string[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function repo(): Promise<TestRepo> {
	const r = await makeRepo({ config: BASIC_CONFIG });
	made.push(r.root, `${r.root}.wt`);
	return r;
}

/** A linked worktree on a new branch, optionally with the task record `start` would write. */
async function worktree(r: TestRepo, name: string, options: { task?: boolean | Record<string, unknown>; commits?: number } = {}): Promise<string> {
	const path = join(`${r.root}.wt`, name);
	// The commit the branch starts from, as `start` records it.
	const base = (await r.git("rev-parse", "HEAD")).trim();
	await r.git("worktree", "add", "-q", "-b", `agent/${name}`, path);
	for (let i = 0; i < (options.commits ?? 0); i++) {
		await writeFile(join(path, `${name}-${i}.txt`), String(i));
		await runGit(path, ["add", "-A"]);
		await runGit(path, ["commit", "-q", "-m", `${name} ${i}`]);
	}
	if (options.task) {
		const gitDir = (await runGit(path, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim();
		await mkdir(join(gitDir, "discern"), { recursive: true });
		const record = {
			version: 1,
			id: `${name}-a1b2c3`,
			title: `Task ${name}`,
			brief: "do it",
			branch: `agent/${name}`,
			base,
			from: "main",
			created_at: "2026-01-01T00:00:00Z",
			created_by: "discern",
		};
		await writeFile(join(gitDir, "discern", "task.json"), JSON.stringify({ ...record, ...(typeof options.task === "object" ? options.task : {}) }));
	}
	return path;
}

const ctxAt = (r: TestRepo, cwd = r.root) => r.ctx({ cwd });

/** A repository whose discern.toml (committed) places worktrees where `worktree` makes them: a stopped removal is finished only there. */
async function repoPlacing(): Promise<TestRepo> {
	const r = await repo();
	await writeFile(join(r.root, "discern.toml"), `${BASIC_CONFIG}\n[worktree]\nroot = ${JSON.stringify(`${r.root}.wt`)}\n`);
	await r.git("commit", "-q", "-am", "worktrees in .wt");
	return r;
}

/** Commit a discern.toml declaring these resources (name → destroy command): the only commands a destroy runs. */
async function declare(r: TestRepo, destroys: Record<string, string>, worktreeTable = ""): Promise<void> {
	const tables = Object.entries(destroys).map(([name, destroy]) => `[worktree.resources.${name}]\ncreate = "true"\ndestroy = ${JSON.stringify(destroy)}\n`);
	await r.write("discern.toml", `${BASIC_CONFIG}${worktreeTable ? `[worktree]\n${worktreeTable}\n` : ""}${tables.join("")}`);
	await r.commitAll("declare resources");
}

function dataOf<T>(result: AnyResult): T {
	if (!result.data) throw new Error(`no data: ${result.message}`);
	return result.data as T;
}

describe("worktree list", () => {
	test("every worktree with its task, tree, distance from the trunk and Proof", async () => {
		const r = await repo();
		await worktree(r, "ahead", { task: true, commits: 2 });
		const dirty = await worktree(r, "dirty");
		await writeFile(join(dirty, "scratch.txt"), "untracked");
		await worktree(r, "behind");
		await r.write("more.txt", "x");
		await r.commitAll("trunk moves");
		const result = await invokeVerb("worktree list", ctxAt(r));
		expect(result.ok).toBe(true);
		const data = dataOf<WorktreeListData>(result);
		expect(data.trunk).toBe("main");
		const byBranch = Object.fromEntries(data.worktrees.map((w) => [w.branch, w]));
		expect(byBranch.main).toMatchObject({ main: true, clean: true, ahead: 0, behind: 0 });
		expect(byBranch["agent/ahead"]).toMatchObject({
			id: "ahead-a1b2c3",
			title: "Task ahead",
			created_by_discern: true,
			clean: true,
			ahead: 2,
			behind: 1,
			proof: "missing",
		});
		expect(byBranch["agent/dirty"]).toMatchObject({ id: null, created_by_discern: false, clean: false, ahead: 0, behind: 1 });
		expect(byBranch["agent/behind"]).toMatchObject({ clean: true, ahead: 0, behind: 1 });
		expect(byBranch["agent/ahead"]?.last_activity).toBeString();
	});

	test("a worktree's Proof is judged as status judges it: green on its HEAD → honored", async () => {
		const r = await repo();
		const path = await worktree(r, "proven", { task: true, commits: 1 });
		const done = await invokeVerb("done", r.ctx({ cwd: path }));
		expect(done.ok).toBe(true);
		const data = dataOf<WorktreeListData>(await invokeVerb("worktree list", ctxAt(r)));
		expect(data.worktrees.find((w) => w.branch === "agent/proven")?.proof).toBe("honored");
		// A new commit there makes it stale.
		await writeFile(join(path, "later.txt"), "x");
		await runGit(path, ["add", "-A"]);
		await runGit(path, ["commit", "-q", "-m", "later"]);
		const again = dataOf<WorktreeListData>(await invokeVerb("worktree list", ctxAt(r)));
		expect(again.worktrees.find((w) => w.branch === "agent/proven")?.proof).toBe("stale");
	});
});

describe("worktree drop", () => {
	test("refuses in a worktree, an unknown id suggests the nearest", async () => {
		const r = await repo();
		const path = await worktree(r, "one", { task: true });
		const inside = await invokeVerb("worktree drop", r.ctx({ cwd: path }), { id: "one-a1b2c3" });
		expect(inside).toMatchObject({ ok: false, error: "not_main_checkout" });
		const unknown = await invokeVerb("worktree drop", ctxAt(r), { id: "one-a1b2c4" });
		expect(unknown).toMatchObject({ ok: false, error: "unknown_target" });
		expect(unknown.ok ? [] : unknown.hints).toContain("Did you mean `discern worktree drop one-a1b2c3`?");
		for (const id of ["--force", "-f", "../x", "..", "main"]) {
			const odd = await invokeVerb("worktree drop", ctxAt(r), { id });
			expect(odd.ok).toBe(false);
		}
		// The main checkout, by path, is never dropped.
		expect(await invokeVerb("worktree drop", ctxAt(r), { id: r.root })).toMatchObject({ ok: false, error: "invalid_arguments" });
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(2);
	});

	test("refuses uncommitted changes and unlanded commits without --force", async () => {
		const r = await repo();
		const dirty = await worktree(r, "dirty");
		await writeFile(join(dirty, "scratch.txt"), "x");
		await worktree(r, "unlanded", { commits: 1 });
		expect(await invokeVerb("worktree drop", ctxAt(r), { id: "agent/dirty" })).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(await invokeVerb("worktree drop", ctxAt(r), { id: "agent/unlanded" })).toMatchObject({ ok: false, error: "active_worktrees" });
		expect(await r.git("for-each-ref", "refs/discern")).toBe("");
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(3);
	});

	test("--force saves the tip under refs/discern/recovery/ first, then removes the worktree and its branch", async () => {
		const r = await repo();
		const path = await worktree(r, "gone", { task: true, commits: 1 });
		await writeFile(join(path, "uncommitted.txt"), "x");
		const tip = (await runGit(path, ["rev-parse", "HEAD"])).trim();
		const preview = await invokeVerb("worktree drop", ctxAt(r), { id: "gone-a1b2c3", force: true, dry_run: true });
		expect(preview).toMatchObject({ ok: true, dry_run: true });
		expect(await r.git("for-each-ref", "refs/discern")).toBe("");
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: path, force: true });
		expect(result.ok).toBe(true);
		const data = dataOf<WorktreeDropData>(result);
		expect(data.recovery_ref).toMatch(/^refs\/discern\/recovery\/agent\/gone-\d{8}T\d{6}Z$/);
		expect(result.message).toContain(data.recovery_ref ?? "?");
		expect(result.message).toContain(`git branch agent/gone ${data.recovery_ref}`);
		expect((await r.git("rev-parse", data.recovery_ref ?? "")).trim()).toBe(tip);
		expect((await r.git("cat-file", "-t", tip)).trim()).toBe("commit");
		expect(await r.git("branch", "--list", "agent/gone")).toBe("");
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(1);
		expect(data).toMatchObject({ removed: true, branch_deleted: true });
	});

	test("a worktree whose folder was replaced by a symlink is never removed through it", async () => {
		const r = await repo();
		const path = await worktree(r, "linked");
		const elsewhere = `${r.root}.wt/elsewhere`;
		await mkdir(elsewhere, { recursive: true });
		await writeFile(join(elsewhere, "precious.txt"), "keep me");
		await rm(path, { recursive: true, force: true });
		await symlink(elsewhere, path);
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: "agent/linked", force: true });
		expect(result).toMatchObject({ ok: false, error: "write_denied" });
		expect(await readFile(join(elsewhere, "precious.txt"), "utf8")).toBe("keep me");
	});
});

describe("worktree prune", () => {
	async function fleet() {
		const r = await repo();
		const landed = await worktree(r, "landed", { task: true, commits: 1 });
		await r.git("merge", "-q", "--ff-only", "agent/landed");
		const dirtyLanded = await worktree(r, "dirtylanded", { task: true });
		await writeFile(join(dirtyLanded, "scratch.txt"), "x");
		await worktree(r, "unlanded", { task: true, commits: 1 });
		await worktree(r, "foreign"); // landed and clean, but discern did not start it
		await worktree(r, "forged", { task: { created_by: "someone" } });
		await worktree(r, "switched", { task: { branch: "agent/other" } });
		return { r, landed };
	}

	test("without --yes and without a terminal: the plan, as a dry run that says to pass --yes", async () => {
		const { r, landed } = await fleet();
		const result = await invokeVerb("worktree prune", ctxAt(r), {});
		expect(result).toMatchObject({ ok: true, dry_run: true });
		expect(result.hints?.join(" ")).toContain("discern worktree prune --yes");
		const data = dataOf<WorktreePruneData>(result);
		expect(data.would_remove).toEqual([landed]);
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(7);
	});

	test("--yes removes only clean, landed worktrees discern started; the others are kept with their reasons", async () => {
		const { r, landed } = await fleet();
		const result = await invokeVerb("worktree prune", ctxAt(r), { yes: true });
		expect(result.ok).toBe(true);
		const data = dataOf<WorktreePruneData>(result);
		expect(data.removed.map((entry) => entry.path)).toEqual([landed]);
		const reasons = Object.fromEntries(data.skipped.map((entry) => [entry.branch, entry.reason]));
		expect(reasons["agent/dirtylanded"]).toContain("uncommitted");
		expect(reasons["agent/unlanded"]).toContain("not on the trunk");
		expect(reasons["agent/foreign"]).toContain("did not start it");
		// A record not written by discern does not parse as a task record at all.
		expect(reasons["agent/forged"]).toContain("did not start it");
		expect(reasons["agent/switched"]).toContain("not the branch discern started it on");
		expect(reasons.main).toBeUndefined();
		expect(await r.git("branch", "--list", "agent/landed")).toBe("");
		const left = (await r.git("worktree", "list")).split("\n").filter(Boolean);
		expect(left).toHaveLength(6);
		expect(left[0]).toContain(r.root);
	});

	test("a terminal's yes is the consent; a no removes nothing", async () => {
		const { r } = await fleet();
		const asked: string[] = [];
		const no = await invokeVerb(
			"worktree prune",
			r.ctx({
				confirm: async (question) => {
					asked.push(question);
					return false;
				},
			}),
			{},
		);
		expect(no).toMatchObject({ ok: true, dry_run: true });
		expect(asked).toEqual(["Remove 1 worktree?"]);
		const yes = await invokeVerb("worktree prune", r.ctx({ confirm: async () => true }), {});
		expect(dataOf<WorktreePruneData>(yes).removed).toHaveLength(1);
	});

	test("refuses in a linked worktree", async () => {
		const r = await repo();
		const path = await worktree(r, "one", { task: true });
		expect(await invokeVerb("worktree prune", r.ctx({ cwd: path }), { yes: true })).toMatchObject({ ok: false, error: "not_main_checkout" });
	});
});

describe("worktree teardown", () => {
	test("destroys the ledger's resources newest first, then removes the ledger; refuses in the main checkout", async () => {
		const r = await repo();
		const path = await worktree(r, "res", { task: true });
		const log = join(`${r.root}.wt`, "order.log");
		const ledgerDir = join(r.root, ".git", "discern", "resources");
		await mkdir(ledgerDir, { recursive: true });
		await declare(r, { db: `echo db >> '${log}'`, cache: `echo cache >> '${log}'`, queue: `echo queue >> '${log}'` });
		const entry = (name: string) => ({ name, state: "created" });
		await writeFile(
			join(ledgerDir, "res-a1b2c3.json"),
			JSON.stringify({ version: 1, id: "res-a1b2c3", worktree: path, entries: [entry("db"), entry("cache"), entry("queue")] }),
		);
		expect(await invokeVerb("worktree teardown", ctxAt(r), {})).toMatchObject({ ok: false, error: "not_in_worktree" });
		const preview = await invokeVerb("worktree teardown", r.ctx({ cwd: path }), { dry_run: true });
		expect(preview.ok && preview.plan?.map((item) => item.label)).toEqual(["queue", "cache", "db"]);
		const result = await invokeVerb("worktree teardown", r.ctx({ cwd: path }), {});
		expect(result.ok).toBe(true);
		expect(dataOf<WorktreeTeardownData>(result).destroyed).toEqual(["queue", "cache", "db"]);
		expect(await readFile(log, "utf8")).toBe("queue\ncache\ndb\n");
		expect(await Bun.file(join(ledgerDir, "res-a1b2c3.json")).exists()).toBe(false);
	});

	test("a failing destroy is reported (provisioned_resources) and a second run does not destroy twice", async () => {
		const r = await repo();
		const path = await worktree(r, "res", { task: true });
		const log = join(`${r.root}.wt`, "order.log");
		const flag = join(`${r.root}.wt`, "fixed");
		const ledgerDir = join(r.root, ".git", "discern", "resources");
		await mkdir(ledgerDir, { recursive: true });
		await declare(r, { stubborn: `test -e '${flag}' && echo stubborn >> '${log}'`, easy: `echo easy >> '${log}'` });
		await writeFile(
			join(ledgerDir, "res-a1b2c3.json"),
			JSON.stringify({
				version: 1,
				id: "res-a1b2c3",
				worktree: path,
				entries: [
					{ name: "stubborn", state: "created" },
					{ name: "easy", state: "created" },
				],
			}),
		);
		expect(await invokeVerb("worktree teardown", r.ctx({ cwd: path }), {})).toMatchObject({ ok: false, error: "provisioned_resources" });
		await writeFile(flag, "");
		expect((await invokeVerb("worktree teardown", r.ctx({ cwd: path }), {})).ok).toBe(true);
		expect(await readFile(log, "utf8")).toBe("easy\nstubborn\n");
	});
});

describe("worktree drop: nothing destroyed before the removal is sure, work saved, gone folders", () => {
	/** A ledger whose destroy writes what it saw to `log`. */
	async function ledger(r: TestRepo, id: string, path: string, log: string, env?: Record<string, unknown>, worktreeTable = "") {
		const dir = join(r.root, ".git", "discern", "resources");
		await mkdir(dir, { recursive: true });
		await declare(r, { db: `echo "destroy $DISCERN_WORKTREE_ID:$DISCERN_WORKTREE_PORT:$DB_HOST" >> '${log}'` }, worktreeTable);
		const entry = { name: "db", state: "created" };
		await writeFile(join(dir, `${id}.json`), JSON.stringify({ version: 1, id, worktree: path, ...(env ? { env } : {}), entries: [entry] }));
	}

	test("a git-locked worktree is refused before its resources are destroyed; list shows it locked", async () => {
		const r = await repo();
		const path = await worktree(r, "locked", { task: true });
		const log = join(`${r.root}.wt`, "log");
		await ledger(r, "locked-a1b2c3", path, log);
		await r.git("worktree", "lock", path);
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: "locked-a1b2c3", force: true });
		expect(result).toMatchObject({ ok: false, error: "write_denied" });
		expect(result.message).toContain("locked");
		expect(await Bun.file(log).exists()).toBe(false);
		expect(await r.git("for-each-ref", "refs/discern")).toBe("");
		const list = dataOf<WorktreeListData>(await invokeVerb("worktree list", ctxAt(r)));
		expect(list.worktrees.find((w) => w.path === path)?.locked).toBe(true);
	});

	test("an id naming two worktrees is ambiguous, so is a prefix two share; a unique prefix names one; none gets a did-you-mean", async () => {
		const r = await repo();
		await worktree(r, "one", { task: true });
		// A second worktree whose branch is literally the first one's id.
		await r.git("worktree", "add", "-q", "-b", "one-a1b2c3", `${r.root}.wt/other`);
		const ambiguous = await invokeVerb("worktree drop", ctxAt(r), { id: "one-a1b2c3", force: true });
		expect(ambiguous).toMatchObject({ ok: false, error: "invalid_arguments" });
		expect(ambiguous.message).toContain(`${r.root}.wt/other`);
		expect(ambiguous.message).toContain(`${r.root}.wt/one`);
		const shared = await invokeVerb("worktree drop", ctxAt(r), { id: "o" });
		expect(shared).toMatchObject({ ok: false, error: "invalid_arguments" });
		expect(shared.message).toContain(`${r.root}.wt/other`);
		expect(shared.message).toContain(`${r.root}.wt/one`);
		const none = await invokeVerb("worktree drop", ctxAt(r), { id: "onx-a1b2c3" });
		expect(none).toMatchObject({ ok: false, error: "unknown_target" });
		expect(none.ok ? "" : none.hints.join(" ")).toContain("discern worktree drop one-a1b2c3");
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(3);
		const unique = await invokeVerb("worktree drop", ctxAt(r), { id: "agent/on" });
		expect(unique.ok).toBe(true);
		expect(existsSync(`${r.root}.wt/one`)).toBe(false);
		expect(existsSync(`${r.root}.wt/other`)).toBe(true);
	});

	test("a branch named to run a command stays one word in every git command the result prints: pasting them runs nothing else", async () => {
		const r = await repo();
		const name = "x;touch$" + "{IFS}PWNED;#";
		const path = await worktree(r, name, { commits: 1 });
		await writeFile(join(path, "uncommitted.txt"), "x");
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: path, force: true });
		expect(result.ok).toBe(true);
		const printed = [...result.message.matchAll(/`(git [^`]*)`/g)].map((match) => simpleCommands(match[1] ?? ""));
		expect(printed.length).toBeGreaterThanOrEqual(2);
		for (const commands of printed) expect(commands).toHaveLength(1);
		expect(printed.map((commands) => commands[0]).find((words) => words?.[1] === "branch")?.[2]).toBe(`agent/${name}`);
		expect(printed.map((commands) => commands[0]).find((words) => words?.[1] === "restore")?.[2]).toStartWith(`--source=refs/discern/recovery/agent/${name}`);
	});

	test("--force saves uncommitted and untracked work as a -wip commit and counts the ignored files lost", async () => {
		const r = await repo();
		const path = await worktree(r, "wip", { task: true, commits: 1 });
		await writeFile(join(path, ".gitignore"), "*.local\n");
		await writeFile(join(path, "wip-0.txt"), "changed");
		await writeFile(join(path, "new.txt"), "untracked");
		await writeFile(join(path, "settings.local"), "ignored");
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: "wip-a1b2c3", force: true });
		expect(result.ok).toBe(true);
		const refs = (await r.git("for-each-ref", "--format=%(refname)", "refs/discern/recovery")).split("\n").filter(Boolean);
		const wip = refs.find((name) => name.endsWith("-wip"));
		expect(wip).toBeString();
		expect(result.message).toContain(`git restore --source=${wip} -- .`);
		expect(result.message).toContain("1 ignored file or folder");
		expect(await r.git("show", `${wip}:wip-0.txt`)).toBe("changed");
		expect(await r.git("show", `${wip}:new.txt`)).toBe("untracked");
		expect((await runGit(r.root, ["ls-tree", "--name-only", wip ?? ""])).split("\n")).not.toContain("settings.local");
	});

	test("a branch checked out in another worktree is kept, and no restore hint is given", async () => {
		const r = await repo();
		const path = await worktree(r, "shared", { task: true });
		await r.git("worktree", "add", "-q", "--force", `${r.root}.wt/twin`, "agent/shared");
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: path });
		expect(result.ok).toBe(true);
		expect(dataOf<WorktreeDropData>(result)).toMatchObject({ removed: true, branch_deleted: false });
		expect(result.message).not.toContain("restore it with");
		expect((await r.git("branch", "--list", "agent/shared")).trim()).toContain("agent/shared");
	});

	test("a folder deleted by hand: --force destroys its resources with the create's env, clears git's record, deletes the branch; list reports a gone worktree's ledger", async () => {
		const r = await repo();
		await writeFile(join(r.root, ".env"), "DB_HOST=db.example\nAPI_KEY=secret\n");
		const path = await worktree(r, "lost", { task: true, commits: 1 });
		const log = join(`${r.root}.wt`, "log");
		await ledger(
			r,
			"lost-a1b2c3",
			path,
			log,
			{ main_root: r.root, env_files: [".env"], inherit_env: ["DB_HOST"], id: "lost-a1b2c3", port: 17301, dir: path },
			`env_files = [".env"]\ninherit_env = ["DB_HOST"]`,
		);
		await rm(path, { recursive: true, force: true });
		const listed = dataOf<WorktreeListData>(await invokeVerb("worktree list", ctxAt(r)));
		expect(listed.orphaned_ledgers).toEqual([{ id: "lost-a1b2c3", path, resources: ["db"] }]);
		const refused = await invokeVerb("worktree drop", ctxAt(r), { id: "lost-a1b2c3" });
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(refused.ok ? "" : refused.hints.join(" ")).toContain("discern worktree drop lost-a1b2c3 --force");
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: "lost-a1b2c3", force: true });
		expect(result.ok).toBe(true);
		expect(await readFile(log, "utf8")).toBe(`destroy lost-a1b2c3:${worktreePort("lost-a1b2c3")}:db.example\n`);
		expect(await r.git("branch", "--list", "agent/lost")).toBe("");
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(1);
		expect(dataOf<WorktreeListData>(await invokeVerb("worktree list", ctxAt(r))).orphaned_ledgers).toEqual([]);
	});

	test("a ledger whose worktree git no longer lists is destroyed by drop ID --force", async () => {
		const r = await repo();
		const log = join(`${r.root}.wt`, "log");
		await mkdir(`${r.root}.wt`, { recursive: true });
		await ledger(r, "ghost-a1b2c3", `${r.root}.wt/ghost`, log, {
			main_root: r.root,
			env_files: [],
			inherit_env: [],
			id: "ghost-a1b2c3",
			port: 17302,
			dir: `${r.root}.wt/ghost`,
		});
		const status = await invokeVerb("status", ctxAt(r));
		expect((status.data as { orphaned_ledgers?: unknown[] }).orphaned_ledgers).toHaveLength(1);
		expect(await invokeVerb("worktree drop", ctxAt(r), { id: "ghost-a1b2c3" })).toMatchObject({ ok: false, error: "provisioned_resources" });
		expect((await invokeVerb("worktree drop", ctxAt(r), { id: "ghost-a1b2c3", force: true })).ok).toBe(true);
		expect(await readFile(log, "utf8")).toBe(`destroy ghost-a1b2c3:${worktreePort("ghost-a1b2c3")}:\n`);
	});
});

describe("worktree prune: a fresh worktree has not landed", () => {
	test("a clean worktree discern started with nothing committed is kept, with its reason", async () => {
		const r = await repo();
		await worktree(r, "fresh", { task: true });
		const result = await invokeVerb("worktree prune", ctxAt(r), { yes: true });
		const data = dataOf<WorktreePruneData>(result);
		expect(data.removed).toEqual([]);
		expect(data.skipped.find((entry) => entry.branch === "agent/fresh")?.reason).toContain("nothing committed");
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(2);
	});
});

describe("drop and prune see work hidden from a plain `git status`", () => {
	test("an assume-unchanged or skip-worktree edit is uncommitted work: drop refuses; --force saves the edit", async () => {
		const r = await repo();
		const path = await worktree(r, "hidden", { task: true, commits: 2 });
		await runGit(path, ["update-index", "--assume-unchanged", "hidden-0.txt"]);
		await runGit(path, ["update-index", "--skip-worktree", "hidden-1.txt"]);
		await writeFile(join(path, "hidden-0.txt"), "edited under assume-unchanged");
		await writeFile(join(path, "hidden-1.txt"), "edited under skip-worktree");
		// Settings that let status skip files (stat shortcuts, the untracked cache) are pinned off too.
		await runGit(path, ["config", "core.ignoreStat", "true"]);
		await runGit(path, ["config", "core.untrackedCache", "true"]);
		expect((await runGit(path, ["status", "--porcelain"])).trim()).toBe("");
		const refused = await invokeVerb("worktree drop", ctxAt(r), { id: "hidden-a1b2c3" });
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		const listed = dataOf<WorktreeListData>(await invokeVerb("worktree list", ctxAt(r)));
		expect(listed.worktrees.find((w) => w.path === path)?.clean).toBe(false);
		const forced = await invokeVerb("worktree drop", ctxAt(r), { id: "hidden-a1b2c3", force: true });
		expect(forced.ok).toBe(true);
		const wip = (await r.git("for-each-ref", "--format=%(refname)", "refs/discern/recovery")).split("\n").find((name) => name.endsWith("-wip"));
		expect(wip).toBeString();
		expect(await r.git("show", `${wip}:hidden-0.txt`)).toBe("edited under assume-unchanged");
		expect(await r.git("show", `${wip}:hidden-1.txt`)).toBe("edited under skip-worktree");
	});

	test("a file hidden only by info/exclude: drop refuses, and --force saves it before the folder goes", async () => {
		const r = await repo();
		const path = await worktree(r, "excluded", { task: true, commits: 1 });
		const exclude = join(r.root, ".git", "info", "exclude");
		await mkdir(join(exclude, ".."), { recursive: true });
		await writeFile(exclude, "notes.local\n");
		await writeFile(join(path, "notes.local"), "precious\n");
		const refused = await invokeVerb("worktree drop", ctxAt(r), { id: "excluded-a1b2c3" });
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		const forced = await invokeVerb("worktree drop", ctxAt(r), { id: "excluded-a1b2c3", force: true });
		expect(forced.ok).toBe(true);
		const wip = (await r.git("for-each-ref", "--format=%(refname)", "refs/discern/recovery")).split("\n").find((name) => name.endsWith("-wip"));
		expect(wip).toBeString();
		expect(await r.git("show", `${wip}:notes.local`)).toBe("precious\n");
	});

	test("prune keeps a landed worktree whose hidden file holds an edit", async () => {
		const r = await repo();
		const path = await worktree(r, "landedhidden", { task: true, commits: 1 });
		await r.git("merge", "-q", "--ff-only", "agent/landedhidden");
		await runGit(path, ["update-index", "--assume-unchanged", "landedhidden-0.txt"]);
		await writeFile(join(path, "landedhidden-0.txt"), "edit");
		const data = dataOf<WorktreePruneData>(await invokeVerb("worktree prune", ctxAt(r), { yes: true }));
		expect(data.removed).toEqual([]);
		expect(data.skipped.find((entry) => entry.path === path)?.reason).toContain("uncommitted");
		expect(await readFile(join(path, "landedhidden-0.txt"), "utf8")).toBe("edit");
	});

	test("prune keeps a landed worktree whose submodule holds an edit that .gitmodules says to ignore (ignore = dirty)", async () => {
		const r = await repo();
		// A submodule whose source is a repository of its own, committed on the trunk with `ignore = dirty`.
		const library = await makeRepo({ config: BASIC_CONFIG, files: { "lib.txt": "lib\n" } });
		made.push(library.root);
		await r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library.root, "lib");
		await r.git("config", "-f", ".gitmodules", "submodule.lib.ignore", "dirty");
		await r.commitAll("add lib, its edits ignored by status");
		const path = await worktree(r, "subwork", { task: true, commits: 1 });
		await runGit(path, ["-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init"]);
		await writeFile(join(path, "lib", "lib.txt"), "precious uncommitted work\n");
		await r.git("merge", "-q", "--ff-only", "agent/subwork");
		expect((await runGit(path, ["status", "--porcelain"])).trim()).toBe("");
		const data = dataOf<WorktreePruneData>(await invokeVerb("worktree prune", ctxAt(r), { yes: true }));
		expect(data.removed).toEqual([]);
		expect(data.skipped.find((entry) => entry.path === path)?.reason).toContain("uncommitted");
		expect(await readFile(join(path, "lib", "lib.txt"), "utf8")).toBe("precious uncommitted work\n");
	});

	test("prune says how many ignored files it deletes", async () => {
		const r = await repo();
		await r.write(".gitignore", "*.local\n.ignored-test\n");
		await r.commitAll("ignore rules");
		const path = await worktree(r, "ign", { task: true, commits: 1 });
		await r.git("merge", "-q", "--ff-only", "agent/ign");
		await writeFile(join(path, ".ignored-test"), "");
		await writeFile(join(path, "a.local"), "x");
		const preview = await invokeVerb("worktree prune", ctxAt(r), {});
		expect(preview.message).toContain("2 ignored files or folders");
		const done = await invokeVerb("worktree prune", ctxAt(r), { yes: true });
		expect(dataOf<WorktreePruneData>(done).removed).toHaveLength(1);
		expect(done.message).toContain("2 ignored files or folders");
	});

	test("a file hidden only by info/exclude is uncommitted work, as done judges it: prune keeps the worktree", async () => {
		const r = await repo();
		const path = await worktree(r, "excl", { task: true, commits: 1 });
		await r.git("merge", "-q", "--ff-only", "agent/excl");
		const exclude = join((await runGit(path, ["rev-parse", "--path-format=absolute", "--git-common-dir"])).trim(), "info", "exclude");
		await mkdir(join(exclude, ".."), { recursive: true });
		await writeFile(exclude, "notes.local\n");
		await writeFile(join(path, "notes.local"), "precious\n");
		const data = dataOf<WorktreePruneData>(await invokeVerb("worktree prune", ctxAt(r), { yes: true }));
		expect(data.removed).toEqual([]);
		expect(data.skipped.find((entry) => entry.path === path)?.reason).toContain("uncommitted");
		expect(await readFile(join(path, "notes.local"), "utf8")).toBe("precious\n");
	});
});

describe("unsigned admin-dir files never steer a destroy", () => {
	async function ledgerFor(r: TestRepo, id: string, path: string, entries: Record<string, unknown>[]) {
		const dir = join(r.root, ".git", "discern", "resources");
		await mkdir(dir, { recursive: true });
		await writeFile(join(dir, `${id}.json`), JSON.stringify({ version: 1, id, worktree: path, entries }));
	}

	test("a worktree that takes another's task id cannot tear down its resources; list calls neither gone; drop refuses both", async () => {
		const r = await repo();
		const log = join(`${r.root}.wt`, "log");
		const victim = await worktree(r, "victim", { task: true });
		const attacker = await worktree(r, "attacker", { task: true });
		await declare(r, { db: `echo "destroy $DISCERN_WORKTREE_ID" >> '${log}'` });
		await ledgerFor(r, "victim-a1b2c3", victim, [{ name: "db", state: "created" }]);
		await ledgerFor(r, "attacker-a1b2c3", attacker, [{ name: "db", state: "created" }]);
		const taskFile = join((await runGit(attacker, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim(), "discern", "task.json");
		await writeFile(taskFile, (await readFile(taskFile, "utf8")).replace("attacker-a1b2c3", "victim-a1b2c3"));
		const torn = await invokeVerb("worktree teardown", r.ctx({ cwd: attacker }), {});
		expect(torn).toMatchObject({ ok: false, error: "provisioned_resources" });
		expect(await Bun.file(log).exists()).toBe(false);
		// The victim itself: two claim the id, so neither destroys.
		expect(await invokeVerb("worktree teardown", r.ctx({ cwd: victim }), {})).toMatchObject({ ok: false, error: "provisioned_resources" });
		expect(await Bun.file(log).exists()).toBe(false);
		const listed = dataOf<WorktreeListData>(await invokeVerb("worktree list", ctxAt(r)));
		expect(listed.orphaned_ledgers).toEqual([]);
		expect(listed.worktrees.find((w) => w.path === attacker)?.problem).toContain("claimed by 2 worktrees");
		expect(await invokeVerb("worktree drop", ctxAt(r), { id: attacker, force: true })).toMatchObject({ ok: false, error: "write_denied" });
		expect(await invokeVerb("worktree drop", ctxAt(r), { id: victim, force: true })).toMatchObject({ ok: false, error: "write_denied" });
		expect(await Bun.file(log).exists()).toBe(false);
		expect(await Bun.file(victim).exists()).toBe(false); // Bun.file on a folder: not a file
		expect((await r.git("worktree", "list")).split("\n").filter(Boolean)).toHaveLength(3);
	});

	test("a command written into the ledger is never run: the declared one is, and an undeclared name is left for a person", async () => {
		const r = await repo();
		const log = join(`${r.root}.wt`, "log");
		const pwned = join(`${r.root}.wt`, "pwned");
		const path = await worktree(r, "edited", { task: true });
		await declare(r, { db: `echo declared >> '${log}'` });
		await ledgerFor(r, "edited-a1b2c3", path, [
			{ name: "db", create: "true", destroy: `touch '${pwned}'`, state: "created" },
			{ name: "rogue", create: "true", destroy: `touch '${pwned}'`, state: "created" },
		]);
		const preview = await invokeVerb("worktree teardown", r.ctx({ cwd: path }), { dry_run: true });
		expect(JSON.stringify(preview.ok && preview.plan)).not.toContain("pwned");
		const result = await invokeVerb("worktree teardown", r.ctx({ cwd: path }), {});
		expect(result).toMatchObject({ ok: false, error: "provisioned_resources" });
		const data = dataOf<WorktreeTeardownData>(result);
		expect(data.destroyed).toEqual(["db"]);
		expect(data.failed.map((failure) => failure.name)).toEqual(["rogue"]);
		expect(data.failed[0]?.message).toContain("by hand");
		expect(await readFile(log, "utf8")).toBe("declared\n");
		expect(await Bun.file(pwned).exists()).toBe(false);
	});

	test("a ledger moved to name another, live worktree is refused", async () => {
		const r = await repo();
		const log = join(`${r.root}.wt`, "log");
		const owner = await worktree(r, "owner", { task: true });
		const other = await worktree(r, "other", { task: true });
		await declare(r, { db: `echo "destroy $DISCERN_ROOT" >> '${log}'` });
		await ledgerFor(r, "owner-a1b2c3", other, [{ name: "db", state: "created" }]);
		expect(await invokeVerb("worktree teardown", r.ctx({ cwd: owner }), {})).toMatchObject({ ok: false, error: "provisioned_resources" });
		expect(await invokeVerb("worktree teardown", r.ctx({ cwd: other }), {})).toMatchObject({ ok: true });
		expect(await Bun.file(log).exists()).toBe(false);
	});
});

describe("drop judges the worktree again after the destroy commands ran", () => {
	test("an edit written while the resources were destroyed stops the removal (and says the resources are gone); --force saves it", async () => {
		const r = await repo();
		const path = await worktree(r, "racy", { task: true });
		await declare(r, { db: `echo late > "$DISCERN_ROOT/late.txt"` });
		const dir = join(r.root, ".git", "discern", "resources");
		await mkdir(dir, { recursive: true });
		await writeFile(
			join(dir, "racy-a1b2c3.json"),
			JSON.stringify({ version: 1, id: "racy-a1b2c3", worktree: path, entries: [{ name: "db", state: "created" }] }),
		);
		const refused = await invokeVerb("worktree drop", ctxAt(r), { id: "racy-a1b2c3" });
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(refused.message).toContain("already destroyed");
		expect(await readFile(join(path, "late.txt"), "utf8")).toBe("late\n");
		const forced = await invokeVerb("worktree drop", ctxAt(r), { id: "racy-a1b2c3", force: true });
		expect(forced.ok).toBe(true);
		const wip = (await r.git("for-each-ref", "--format=%(refname)", "refs/discern/recovery")).split("\n").find((name) => name.endsWith("-wip"));
		expect(await r.git("show", `${wip}:late.txt`)).toBe("late\n");
	});
});

describe("worktree drop: stopped while git removes the folder", () => {
	/** The folders under `<repo>/.git/discern/kept/<time>/`. */
	function keptFolders(r: TestRepo): string[] {
		const top = join(r.root, ".git", "discern", "kept");
		return existsSync(top) ? readdirSync(top).flatMap((stamp) => readdirSync(join(top, stamp))) : [];
	}

	/** A worktree holding thousands of files (committed, landed): git deletes them one by one, long enough to stop it halfway. */
	async function bulky(r: TestRepo, name: string): Promise<string> {
		const path = await worktree(r, name, { task: true });
		// git deletes the folder's entries in the order the file system lists them, `.git` among them: enough
		// folders of files come after it that a removal stopped just after `.git` went leaves most of them.
		for (let folder = 0; folder < 200; folder++) {
			const entries = readdirSync(path);
			if (folder >= 40 && entries.length - entries.indexOf(".git") > 20) break;
			await mkdir(join(path, `t${folder}`));
			for (let index = 0; index < 100; index++) await writeFile(join(path, `t${folder}`, `${index}.txt`), `${"z".repeat(400)}\n`);
		}
		await runGit(path, ["add", "-A"]);
		await runGit(path, ["commit", "-q", "-m", "bulk"]);
		await r.git("merge", "-q", "--ff-only", `agent/${name}`);
		return path;
	}

	/** Wait until git has deleted the worktree's `.git` file (the first thing it removes): the removal is under way. */
	async function midRemoval(path: string, running: () => boolean): Promise<void> {
		const started = Date.now();
		while (existsSync(join(path, ".git")) && Date.now() - started < 60_000 && running()) await Bun.sleep(1);
		expect(existsSync(join(path, ".git"))).toBe(false);
	}

	test("Ctrl-C (SIGINT to the process group) during drop: git, in a session of its own, removes the folder whole", async () => {
		const r = await repo();
		const path = await bulky(r, "big");
		await writeFile(join(r.root, "mine.txt"), "a person's file\n");
		const child = Bun.spawn([await ensureBinary(), "worktree", "drop", "big-a1b2c3", "--json"], {
			cwd: r.root,
			env: { ...process.env, NO_COLOR: "1" },
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
			detached: true,
		});
		const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
		await midRemoval(path, () => child.exitCode === null);
		try {
			process.kill(-child.pid, "SIGINT");
		} catch {
			// It ended first: what it left is judged all the same.
		}
		await child.exited;
		await output;
		// git was not stopped: the folder is gone whole, and git lists it no more.
		const started = Date.now();
		while ((await processesWithCommandLine(`worktree remove --force ${path}`)).length > 0 && Date.now() - started < 60_000) await Bun.sleep(20);
		expect(existsSync(path)).toBe(false);
		expect(await r.git("worktree", "list", "--porcelain")).not.toContain(path);
		expect(await readFile(join(r.root, "mine.txt"), "utf8")).toBe("a person's file\n");
	}, 60_000);

	test("a removal killed halfway anyway (its git SIGKILLed): interrupted, and the next drop finishes it; a folder without its .git file and no mark is never deleted", async () => {
		const r = await repoPlacing();
		const path = await bulky(r, "half");
		let running = true;
		const dropping = invokeVerb("worktree drop", ctxAt(r), { id: "half-a1b2c3" }).finally(() => {
			running = false;
		});
		// Found as soon as it starts (a scan takes a while), killed once it has begun deleting.
		let removing: number[] = [];
		const started = Date.now();
		while (removing.length === 0 && running && Date.now() - started < 60_000) removing = await processesWithCommandLine(`worktree remove --force ${path}`);
		expect(removing.length).toBe(1);
		await midRemoval(path, () => running);
		for (const pid of removing) process.kill(pid, "SIGKILL");
		const stopped = await dropping;
		expect(stopped).toMatchObject({ ok: false, error: "interrupted" });
		expect(existsSync(path)).toBe(true);
		const finished = await invokeVerb("worktree drop", ctxAt(r), { id: "half-a1b2c3" });
		expect(finished).toMatchObject({ ok: true });
		expect(dataOf<WorktreeDropData>(finished)).toMatchObject({ removed: true, branch_deleted: true });
		expect(existsSync(path)).toBe(false);
		// The rest of it was moved aside, not deleted (the mark that allowed it is forgeable), and the drop says where.
		expect(keptFolders(r)).toEqual(["half"]);
		expect(finished.hints?.join(" ")).toContain(join(r.root, ".git", "discern", "kept"));
		expect(await r.git("worktree", "list", "--porcelain")).not.toContain(path);

		// A `.git` file deleted by hand: nothing says a drop was under way, so the folder (and what it holds) stays.
		const other = await worktree(r, "byhand", { task: true });
		await writeFile(join(other, "notes.txt"), "mine\n");
		await rm(join(other, ".git"));
		const refused = await invokeVerb("worktree drop", ctxAt(r), { id: "byhand-a1b2c3", force: true });
		expect(refused).toMatchObject({ ok: false, error: "write_denied" });
		expect(refused.ok ? "" : refused.hints.join(" ")).toContain("git worktree prune");
		expect(await readFile(join(other, "notes.txt"), "utf8")).toBe("mine\n");
	}, 60_000);
});

describe("worktree drop: a forged mark of a stopped removal", () => {
	/** An agent's forgery: the worktree's admin dir pointed at `victim`, and a drop mark for it sealed with the key read from .git. */
	async function forgeMark(r: TestRepo, worktreePath: string, victim: string): Promise<void> {
		const admin = (await runGit(worktreePath, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim();
		// discern made its seal key earlier (any Proof does); the agent reads it, as a same-user process can.
		await sealOf(join(r.root, ".git"), "x", { create: true });
		const key = Buffer.from((await readFile(join(r.root, ".git", "discern", "proof-key"), "utf8")).trim(), "hex");
		await writeFile(join(admin, "gitdir"), `${join(victim, ".git")}\n`);
		const seal = createHmac("sha256", key).update(`worktree-dropping\n${admin}\n${victim}`).digest("hex");
		await mkdir(join(r.root, ".git", "discern", "dropping"), { recursive: true });
		await writeFile(join(r.root, ".git", "discern", "dropping", `${basename(admin)}.json`), JSON.stringify({ admin, path: victim, seal }));
		// The forgery holds: the mark reads as discern's own.
		expect(await wasDropping(join(r.root, ".git"), admin, victim)).toBe(true);
	}

	test("a mark an agent sealed with the key read from .git, its admin dir pointed at a person's folder: the folder is untouched", async () => {
		const r = await repo();
		const path = await worktree(r, "dd", { task: true });
		const victim = `${r.root}.victim`;
		made.push(victim);
		await mkdir(join(victim, "docs"), { recursive: true });
		await writeFile(join(victim, "docs", "thesis.txt"), "precious\n");
		await forgeMark(r, path, victim);
		const result = await invokeVerb("worktree drop", ctxAt(r), { id: "dd-a1b2c3", force: true });
		expect(result).toMatchObject({ ok: false, error: "write_denied" });
		expect(result.message).toContain("where discern places worktrees");
		expect(await readFile(join(victim, "docs", "thesis.txt"), "utf8")).toBe("precious\n");
	});

	test("inside the worktree folder too: the folder itself, and a folder holding a repository, are never taken", async () => {
		const r = await repoPlacing();
		const path = await worktree(r, "dd", { task: true });
		// The folder worktrees go in: every worktree's folder is in it.
		await forgeMark(r, path, `${r.root}.wt`);
		const whole = await invokeVerb("worktree drop", ctxAt(r), { id: "dd-a1b2c3", force: true });
		expect(whole).toMatchObject({ ok: false, error: "write_denied" });
		expect(existsSync(join(path, "README.md"))).toBe(true);
		// A person's clone kept beside the worktrees.
		const mine = join(`${r.root}.wt`, "mine");
		await mkdir(join(mine, "clone"), { recursive: true });
		await runGit(join(mine, "clone"), ["init", "-q"]);
		await writeFile(join(mine, "clone", "work.txt"), "uncommitted\n");
		await forgeMark(r, path, mine);
		const clone = await invokeVerb("worktree drop", ctxAt(r), { id: "dd-a1b2c3", force: true });
		expect(clone).toMatchObject({ ok: false, error: "write_denied" });
		expect(clone.message).toContain("is a repository");
		expect(await readFile(join(mine, "clone", "work.txt"), "utf8")).toBe("uncommitted\n");
	});
});
