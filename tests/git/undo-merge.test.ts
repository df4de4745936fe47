import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { undoMerge } from "../../src/git/undo-merge.ts";
import { Keeper } from "../../src/state/kept.ts";
import { BASIC_CONFIG } from "../helpers/repo.ts";
import { makeWorktreeRepo } from "../helpers/worktree.ts";

const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("undoMerge: what it takes away is kept", () => {
	test("a person's file at a path the merge adds (written while the merge ran) is moved into the kept folder, never deleted, and a tracked file it writes over is kept too", async () => {
		const repo = await makeWorktreeRepo({ config: BASIC_CONFIG, files: { "README.md": "one\n" } });
		made.push(...repo.cleanupDirs);
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		// The merge was stopped before it wrote anything; meanwhile a person wrote a file where it adds one, and edited one it writes.
		await repo.wtWrite("new.txt", "the person's own\n");
		await repo.wtWrite("README.md", "one, edited\n");
		const keeper = new Keeper(join(repo.root, ".git"));
		await undoMerge(repo.wt, { head, paths: ["new.txt", "README.md"], newFolders: [], started: Date.now() }, keeper);
		const top = join(repo.root, ".git", "discern", "kept");
		const stamps = existsSync(top) ? readdirSync(top) : [];
		expect(stamps.length).toBe(1);
		const kept = join(top, stamps[0] ?? "");
		expect(await readFile(join(kept, "new.txt"), "utf8")).toBe("the person's own\n");
		expect(await readFile(join(kept, "README.md"), "utf8")).toBe("one, edited\n");
		// The worktree is as HEAD has it, and the message says where the files went.
		expect(existsSync(join(repo.wt, "new.txt"))).toBe(false);
		expect(await readFile(join(repo.wt, "README.md"), "utf8")).toBe("one\n");
		expect(keeper.count).toBe(2);
		expect(keeper.note()).toContain(kept);
	});
});
