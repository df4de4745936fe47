import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { UpdateData } from "../../src/verbs/update/schema.ts";
import { overwrittenFiles } from "../../src/verbs/update/update.ts";
import { worktreePort } from "../../src/worktree/id.ts";
import { ensureBinary, onlyJson } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { processesWithCommandLine } from "../helpers/processes.ts";
import { BASIC_CONFIG, testContext } from "../helpers/repo.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function fixture(config = BASIC_CONFIG): Promise<WorktreeRepo> {
	const repo = await makeWorktreeRepo({ config, files: { "README.md": "one\ntwo\nthree\nfour\nfive\nsix\n" } });
	made.push(...repo.cleanupDirs);
	return repo;
}

const data = (result: { data?: unknown }) => result.data as UpdateData;

describe("update", () => {
	test("merges the trunk (fast-forward) and runs setup.ensure", async () => {
		const repo = await fixture(`${BASIC_CONFIG}\n[worktree.setup]\nensure = ["touch .ensured"]\n`);
		await repo.write(".gitignore", ".ensured\n");
		await repo.write("new.txt", "from trunk\n");
		await repo.commitAll("trunk work");
		const result = await invokeVerb("update", testContext(repo.wt));
		expect(result.ok).toBe(true);
		expect(data(result)).toMatchObject({ merged: true, fast_forward: true, commits_total: 1, ensure_ran: 1 });
		expect(data(result).files).toContain("new.txt");
		expect(await readFile(join(repo.wt, "new.txt"), "utf8")).toBe("from trunk\n");
		expect(existsSync(join(repo.wt, ".ensured"))).toBe(true);
	});

	test("reports overlap: files both sides changed", async () => {
		const repo = await fixture();
		await repo.wtWrite("README.md", "ONE\ntwo\nthree\nfour\nfive\nsix\n");
		await repo.wtCommit("ours");
		await repo.write("README.md", "one\ntwo\nthree\nfour\nfive\nSIX\n");
		await repo.commitAll("theirs");
		const result = await invokeVerb("update", testContext(repo.wt));
		expect(result.ok).toBe(true);
		expect(data(result)).toMatchObject({ merged: true, fast_forward: false, overlap: ["README.md"] });
		expect(await readFile(join(repo.wt, "README.md"), "utf8")).toBe("ONE\ntwo\nthree\nfour\nfive\nSIX\n");
	});

	test("a conflict is aborted, the files named, the branch as it was", async () => {
		const repo = await fixture();
		await repo.wtWrite("README.md", "ours\n");
		await repo.wtCommit("ours");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		await repo.write("README.md", "theirs\n");
		await repo.commitAll("theirs");
		const result = await invokeVerb("update", testContext(repo.wt));
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.error).toBe("conflict");
			expect(result.message).toContain("README.md");
		}
		expect(data(result).conflicts).toEqual(["README.md"]);
		expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(head);
		expect((await repo.wtGit("status", "--porcelain")).trim()).toBe("");
	});

	test("a dirty tracked tree is refused; dry run changes nothing", async () => {
		const repo = await fixture();
		await repo.write("new.txt", "from trunk\n");
		await repo.commitAll("trunk work");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const dry = await invokeVerb("update", testContext(repo.wt), { dry_run: true });
		expect(dry.ok && dry.dry_run).toBe(true);
		expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(head);
		await repo.wtWrite("README.md", "edited\n");
		const result = await invokeVerb("update", testContext(repo.wt));
		expect(result.ok ? "" : result.error).toBe("dirty_worktree");
		expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(head);
	});

	test("the main checkout is refused; an option-like --from is only a name", async () => {
		const repo = await fixture();
		const main = await invokeVerb("update", testContext(repo.root));
		expect(main.ok ? "" : main.error).toBe("not_in_worktree");
		const dashed = await invokeVerb("update", testContext(repo.wt), { from: "--upload-pack=touch /tmp/pwned" });
		expect(dashed.ok ? "" : dashed.error).toBe("unknown_target");
	});
});

describe("update: untracked and ignored files, a rewritten trunk, ensure's env", () => {
	test("refuses (nothing changed) when the merge would add a path where an ignored file sits", async () => {
		const repo = await fixture(`${BASIC_CONFIG}\n[worktree.setup]\nensure = ["true"]\n`);
		await repo.wtWrite(".gitignore", ".env\n*.local\n");
		await repo.wtCommit("ignore");
		await repo.wtWrite(".env", "SECRET=mine\n");
		await repo.wtWrite("conf/app.local", "mine");
		await repo.write(".env", "SECRET=theirs\n");
		await repo.write("conf/app.local/inner", "x");
		await repo.commitAll("trunk adds .env");
		const head = await repo.wtGit("rev-parse", "HEAD");
		const result = await invokeVerb("update", testContext(repo.wt));
		expect(result).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(result.message).toContain(".env");
		expect(result.message).toContain("conf/app.local");
		expect(await readFile(join(repo.wt, ".env"), "utf8")).toBe("SECRET=mine\n");
		expect(await readFile(join(repo.wt, "conf/app.local"), "utf8")).toBe("mine");
		expect(await repo.wtGit("rev-parse", "HEAD")).toBe(head);
	});

	test("a trunk rewritten under the task (its base no longer on it) is refused", async () => {
		const repo = await makeWorktreeRepo({ config: BASIC_CONFIG, id: "x-a1b2c3" });
		made.push(...repo.cleanupDirs);
		const gitDir = (await repo.wtGit("rev-parse", "--path-format=absolute", "--git-dir")).trim();
		const base = (await repo.git("rev-parse", "main")).trim();
		const task = JSON.parse(await readFile(join(gitDir, "discern", "task.json"), "utf8"));
		await Bun.write(join(gitDir, "discern", "task.json"), JSON.stringify({ ...task, base }));
		await repo.wtWrite("mine.txt", "x");
		await repo.wtCommit("mine");
		await repo.git("checkout", "-q", "--orphan", "rewritten");
		await repo.write("other.txt", "y");
		await repo.commitAll("new history");
		await repo.git("branch", "-M", "rewritten", "main");
		const result = await invokeVerb("update", testContext(repo.wt));
		expect(result).toMatchObject({ ok: false, error: "conflict" });
		expect(result.message).toContain("rewritten");
	});

	test("setup.ensure after a merge gets the worktree's env: inherit_env from the main checkout's env files and the port, not other env-file keys", async () => {
		const repo = await makeWorktreeRepo({
			config: `${BASIC_CONFIG}\n[worktree]\ninherit_env = ["DB_HOST"]\n[worktree.setup]\nensure = ["echo $DB_HOST:$DISCERN_WORKTREE_PORT:$API_KEY > ensure.out"]\n`,
			id: "x-a1b2c3",
		});
		made.push(...repo.cleanupDirs);
		await repo.write(".gitignore", "ensure.out\n.env\n");
		await repo.commitAll("ignore");
		await Bun.write(join(repo.root, ".env"), "DB_HOST=db.local\nAPI_KEY=secret\n");
		const result = await invokeVerb("update", testContext(repo.wt));
		expect(result.ok).toBe(true);
		expect((await readFile(join(repo.wt, "ensure.out"), "utf8")).trim()).toBe(`db.local:${worktreePort("x-a1b2c3")}:`);
	});

	test("git's 'would be overwritten' list is named", () => {
		const output =
			"error: The following untracked working tree files would be overwritten by merge:\n\ta.txt\n\tdir/b.txt\nPlease move or remove them before you merge.\nAborting\n";
		expect(overwrittenFiles(output)).toEqual(["a.txt", "dir/b.txt"]);
	});
});

describe("update: interrupted during the merge", () => {
	/** A trunk commit writing thousands of files: the merge writes them one by one, long enough to stop it halfway. */
	async function bulky(ownCommit: boolean): Promise<{ repo: WorktreeRepo; head: string }> {
		const repo = await fixture();
		const line = `${"x".repeat(200)}\n`;
		for (let index = 0; index < 4000; index++) await repo.write(`bulk/${String(index).padStart(4, "0")}.txt`, line.repeat(4));
		await repo.write("README.md", "one\ntwo\nthree\nfour\nfive\nSIX\n");
		await repo.commitAll("many files");
		if (ownCommit) {
			await repo.wtWrite("mine.ts", "export const mine = 1;\n");
			await repo.wtCommit("own work");
		}
		// A person's untracked and ignored files elsewhere in the worktree: the undo never touches them.
		await repo.wtWrite("notes.txt", "my notes\n");
		await repo.wtWrite("local.secret", "token\n");
		const exclude = join(repo.root, ".git", "info", "exclude");
		await writeFile(exclude, `${existsSync(exclude) ? await readFile(exclude, "utf8") : ""}local.secret\n`);
		return { repo, head: (await repo.wtGit("rev-parse", "HEAD")).trim() };
	}

	/** The built binary's update, in its own process group (a terminal's foreground job), Ctrl-C'd once the merge has written its first file. */
	async function ctrlCMidMerge(repo: WorktreeRepo): Promise<{ code: number; stdout: string }> {
		const binary = await ensureBinary();
		const child = Bun.spawn([binary, "update", "--json"], {
			cwd: repo.wt,
			env: { ...process.env, NO_COLOR: "1" },
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
			detached: true,
		});
		const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
		const started = Date.now();
		while (!existsSync(join(repo.wt, "bulk")) && Date.now() - started < 60_000 && child.exitCode === null) await Bun.sleep(1);
		expect(existsSync(join(repo.wt, "bulk"))).toBe(true);
		try {
			process.kill(-child.pid, "SIGINT");
		} catch {
			// It ended first: what it left is judged all the same.
		}
		const code = await child.exited;
		return { code, stdout: (await output)[0] };
	}

	for (const [kind, ownCommit] of [
		["fast-forward", false],
		["merge commit", true],
	] as const) {
		test(`Ctrl-C mid-merge (${kind}): the merge is undone whole, the branch as it was, a person's files kept; update then merges`, async () => {
			const { repo, head } = await bulky(ownCommit);
			const { code, stdout } = await ctrlCMidMerge(repo);
			expect(code).toBe(130);
			const result = onlyJson(stdout);
			expect(result).toMatchObject({ ok: false, error: "interrupted" });
			expect(String(result.message)).toContain("The merge was undone: the branch is as it was.");
			expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(head);
			expect(await repo.wtGit("rev-parse", "-q", "--verify", "MERGE_HEAD").catch(() => "")).toBe("");
			expect((await repo.wtGit("status", "--porcelain", "--untracked-files=all")).trim()).toBe("?? notes.txt");
			expect(existsSync(join(repo.wt, "bulk"))).toBe(false);
			expect(await readFile(join(repo.wt, "README.md"), "utf8")).toBe("one\ntwo\nthree\nfour\nfive\nsix\n");
			expect(await readFile(join(repo.wt, "notes.txt"), "utf8")).toBe("my notes\n");
			expect(await readFile(join(repo.wt, "local.secret"), "utf8")).toBe("token\n");
			const again = await invokeVerb("update", testContext(repo.wt));
			expect(again.ok).toBe(true);
			expect(existsSync(join(repo.wt, "bulk", "3999.txt"))).toBe(true);
		}, 60_000);
	}
});

describe("update: its merge's git killed outright", () => {
	test("a merge git SIGKILLed halfway (its index lock left, files half written) is undone: the branch and worktree as they were", async () => {
		const repo = await makeWorktreeRepo({ config: BASIC_CONFIG, files: { "README.md": "one\n" } });
		made.push(...repo.cleanupDirs);
		for (let index = 0; index < 4000; index++) await repo.write(`bulk/${String(index).padStart(4, "0")}.txt`, `${"y".repeat(800)}\n`);
		await repo.write("README.md", "two\n");
		await repo.commitAll("many files");
		await repo.wtWrite("notes.txt", "my notes\n");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const trunk = await repo.sha("main");
		let running = true;
		const update = invokeVerb("update", testContext(repo.wt)).finally(() => {
			running = false;
		});
		const started = Date.now();
		while (!existsSync(join(repo.wt, "bulk")) && Date.now() - started < 60_000 && running) await Bun.sleep(1);
		const merging = await processesWithCommandLine(`--no-overwrite-ignore -m Merge main into ${repo.branch} ${trunk}`);
		expect(merging.length).toBe(1);
		for (const pid of merging) process.kill(pid, "SIGKILL");
		const result = await update;
		expect(result).toMatchObject({ ok: false, error: "interrupted" });
		expect(result.message).toContain("The merge was undone: the branch is as it was.");
		expect((await repo.wtGit("rev-parse", "HEAD")).trim()).toBe(head);
		expect((await repo.wtGit("status", "--porcelain", "--untracked-files=all")).trim()).toBe("?? notes.txt");
		expect(existsSync(join(repo.wt, "bulk"))).toBe(false);
		expect(await readFile(join(repo.wt, "README.md"), "utf8")).toBe("one\n");
	}, 60_000);
});
