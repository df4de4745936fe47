import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { UpdateData } from "../../src/verbs/update/schema.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { BASIC_CONFIG, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/**
 * Every path a merge writes, not only the ones the trunk adds, is checked for
 * a file git does not track before `update` merges: git overwrites an ignored
 * file without a word, and `merge --abort` then deletes what it wrote.
 */
const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function fixture(files: Record<string, string>): Promise<WorktreeRepo> {
	const repo = await makeWorktreeRepo({ config: BASIC_CONFIG, files: { "README.md": "# fixture\n", ...files } });
	made.push(...repo.cleanupDirs);
	return repo;
}

/** update (and its dry run) refused before merging: nothing changed, each file named, the result valid against update's schema. */
async function expectRefusedNaming(repo: WorktreeRepo, paths: readonly string[]): Promise<void> {
	const head = await repo.wtGit("rev-parse", "HEAD");
	const dry = await invokeVerb("update", testContext(repo.wt), { dry_run: true });
	expectValidEnvelope("update", dry);
	expect(dry).toMatchObject({ ok: false, error: "dirty_worktree" });
	const result = await invokeVerb("update", testContext(repo.wt));
	expectValidEnvelope("update", result);
	expect(result).toMatchObject({ ok: false, error: "dirty_worktree" });
	for (const path of paths) expect(result.message).toContain(path);
	expect(result.message).toContain("Nothing changed");
	expect(await repo.wtGit("rev-parse", "HEAD")).toBe(head);
	expect(existsSync(join(repo.wt, ".git"))).toBe(true);
	expect(await repo.wtGit("rev-parse", "-q", "--verify", "MERGE_HEAD").catch(() => "none")).toBe("none");
}

describe("update: a file git does not track, at any path the merge writes", () => {
	test("a rename on the trunk onto paths this branch stopped tracking: the ignored file and the untracked one are both named, both kept", async () => {
		const repo = await fixture({ "notes.txt": "shared notes\n", "todo.txt": "shared todo\n", "docs.txt": "docs\n", "guide.txt": "guide\n" });
		// The branch stops tracking its notes (now ignored) and its todo list (now merely untracked).
		await repo.wtGit("rm", "-q", "notes.txt", "todo.txt");
		await repo.wtWrite(".gitignore", "notes.txt\n");
		await repo.wtCommit("keep notes and todo local");
		await repo.wtWrite("notes.txt", "my notes\n");
		await repo.wtWrite("todo.txt", "my todo\n");
		// The trunk renames other files onto both names.
		await repo.git("mv", "-f", "docs.txt", "notes.txt");
		await repo.git("mv", "-f", "guide.txt", "todo.txt");
		await repo.commitAll("rename docs and guide");
		await expectRefusedNaming(repo, ["notes.txt", "todo.txt"]);
		expect(await readFile(join(repo.wt, "notes.txt"), "utf8")).toBe("my notes\n");
		expect(await readFile(join(repo.wt, "todo.txt"), "utf8")).toBe("my todo\n");
	});

	test("directory-rename detection moving the trunk's new file onto an ignored file", async () => {
		const repo = await fixture({ "old/a.txt": "a\n", "old/b.txt": "b\n", ".gitignore": "new/y.txt\n" });
		await repo.wtGit("mv", "old", "new");
		await repo.wtCommit("rename old to new");
		await repo.wtWrite("new/y.txt", "mine\n");
		// The trunk adds old/y.txt; git moves it to new/y.txt, where this branch moved old/.
		await repo.write("old/y.txt", "theirs\n");
		await repo.commitAll("add old/y.txt");
		await expectRefusedNaming(repo, ["new/y.txt"]);
		expect(await readFile(join(repo.wt, "new/y.txt"), "utf8")).toBe("mine\n");
	});

	test("a modify/delete conflict whose kept side lands on an ignored file", async () => {
		const repo = await fixture({ ".gitignore": "*.local\n", "app.local": "shared\n" });
		await repo.git("add", "-f", "app.local");
		await repo.commitAll("track app.local");
		await repo.wtGit("merge", "-q", "main");
		await repo.wtGit("rm", "-q", "app.local");
		await repo.wtCommit("drop app.local");
		await repo.wtWrite("app.local", "SECRET=mine\n");
		await repo.write("app.local", "changed on trunk\n");
		await repo.commitAll("change app.local");
		await expectRefusedNaming(repo, ["app.local"]);
		expect(await readFile(join(repo.wt, "app.local"), "utf8")).toBe("SECRET=mine\n");
	});

	test("an ignored folder where the merge writes a file (and an untracked one: named, not a bare git error)", async () => {
		const repo = await fixture({ ".gitignore": "logs/\n", logs: "log\n", cache: "cache\n" });
		await repo.wtGit("rm", "-q", "logs", "cache");
		await repo.wtCommit("drop logs and cache");
		await repo.wtWrite("logs/today.txt", "mine\n");
		await repo.wtWrite("cache/entry", "mine too\n");
		await repo.write("logs", "changed\n");
		await repo.write("cache", "changed\n");
		await repo.commitAll("change logs and cache");
		await expectRefusedNaming(repo, ["logs", "cache"]);
		expect(await readFile(join(repo.wt, "logs/today.txt"), "utf8")).toBe("mine\n");
		expect(await readFile(join(repo.wt, "cache/entry"), "utf8")).toBe("mine too\n");
	});

	test("a side moved aside (`path~HEAD`) onto an ignored file", async () => {
		const repo = await fixture({ ".gitignore": "*~HEAD\n" });
		await repo.wtWrite("p", "ours\n");
		await repo.wtCommit("add p");
		await repo.wtWrite("p~HEAD", "mine\n");
		await repo.write("p/q", "theirs\n");
		await repo.commitAll("add p/q");
		await expectRefusedNaming(repo, ["p~HEAD"]);
		expect(await readFile(join(repo.wt, "p~HEAD"), "utf8")).toBe("mine\n");
	});

	test("a name that is not UTF-8: an ignored file there is still found", async () => {
		const repo = await fixture({ ".gitignore": "*.local\n" });
		await repo.wtWrite("mine.txt", "ours\n");
		await repo.wtCommit("ours: a merge commit, not a fast-forward");
		// "café.local" in Latin-1: git's answer decodes it to U+FFFD, which names no file on disk.
		const name = (dir: string) => Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.from([0xe9]), Buffer.from(".local")]);
		await writeFile(name(repo.wt), "SECRET=mine\n");
		await writeFile(name(repo.root), "theirs\n");
		await repo.git("add", "-f", "--", "*.local");
		await repo.commitAll("add a Latin-1 name");
		const result = await invokeVerb("update", testContext(repo.wt));
		expectValidEnvelope("update", result);
		expect(result).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(await readFile(name(repo.wt), "utf8")).toBe("SECRET=mine\n");
		// Moved aside, the name no longer blocks the merge.
		await rename(name(repo.wt), join(repo.wt, "kept.local"));
		expect((await invokeVerb("update", testContext(repo.wt))).ok).toBe(true);
		expect(await readFile(name(repo.wt), "utf8")).toBe("theirs\n");
	});

	test("a clean merge beside untracked and ignored files still merges, and leaves them be", async () => {
		const repo = await fixture({ ".gitignore": "dist/\n*.local\n", "src/a.txt": "a\n", "src/b.txt": "b\n" });
		await repo.wtWrite("src/mine.txt", "ours\n");
		await repo.wtCommit("ours");
		await repo.wtWrite("dist/out.js", "built\n");
		await repo.wtWrite("src/notes.local", "mine\n");
		await repo.wtWrite("scratch.txt", "untracked\n");
		await repo.write("src/c.txt", "c\n");
		await repo.write("dist.txt", "not dist/\n");
		await repo.git("mv", "src/b.txt", "src/renamed.txt");
		await repo.commitAll("theirs");
		const result = await invokeVerb("update", testContext(repo.wt));
		expectValidEnvelope("update", result);
		expect(result.ok).toBe(true);
		expect(result.data as UpdateData).toMatchObject({ merged: true, fast_forward: false });
		expect(await readFile(join(repo.wt, "src/c.txt"), "utf8")).toBe("c\n");
		expect(await readFile(join(repo.wt, "src/renamed.txt"), "utf8")).toBe("b\n");
		expect(await readFile(join(repo.wt, "dist/out.js"), "utf8")).toBe("built\n");
		expect(await readFile(join(repo.wt, "src/notes.local"), "utf8")).toBe("mine\n");
		expect(await readFile(join(repo.wt, "scratch.txt"), "utf8")).toBe("untracked\n");
	});
});
