import { afterAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { estimatedMergeWrites, mergeWrites } from "../../src/git/merge-writes.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function fixture(files: Record<string, string>): Promise<WorktreeRepo> {
	const repo = await makeWorktreeRepo({ files: { "README.md": "# fixture\n", ...files } });
	made.push(...repo.cleanupDirs);
	return repo;
}

/** Histories whose merge writes more than the trunk adds: what merge-tree tells, and what an older git's estimate must cover. */
const CASES: { name: string; make: (repo: WorktreeRepo) => Promise<void>; files: Record<string, string>; writes: string[] }[] = [
	{
		name: "a rename onto a path this branch deleted",
		files: { "notes.txt": "notes\n", "docs.txt": "docs\n" },
		make: async (repo) => {
			await repo.wtGit("rm", "-q", "notes.txt");
			await repo.wtCommit("drop notes");
			await repo.git("mv", "-f", "docs.txt", "notes.txt");
			await repo.commitAll("rename docs");
		},
		writes: ["notes.txt"],
	},
	{
		name: "a modify/delete conflict",
		files: { "app.cfg": "one\n" },
		make: async (repo) => {
			await repo.wtGit("rm", "-q", "app.cfg");
			await repo.wtCommit("drop app.cfg");
			await repo.write("app.cfg", "two\n");
			await repo.commitAll("change app.cfg");
		},
		writes: ["app.cfg"],
	},
	{
		name: "a file/folder conflict moving this side's file aside",
		files: {},
		make: async (repo) => {
			await repo.wtWrite("p", "ours\n");
			await repo.wtCommit("add p");
			await repo.write("p/q", "theirs\n");
			await repo.commitAll("add p/q");
		},
		writes: ["p/q", "p~HEAD"],
	},
];

describe("mergeWrites", () => {
	for (const { name, files, make, writes } of CASES) {
		test(`${name}: merge-tree names it, and the older git's estimate covers it`, async () => {
			const repo = await fixture(files);
			await make(repo);
			const incoming = await repo.sha("main");
			const told = await mergeWrites(repo.wt, incoming);
			const estimated = await estimatedMergeWrites(repo.wt, incoming);
			if (told.kind !== "told" || estimated.kind !== "told") throw new Error("git could not tell");
			expect(told.paths).toEqual(writes);
			expect(estimated.paths).toEqual(expect.arrayContaining(told.paths));
			expect(estimated.mergeArgs).toEqual(["-c", "merge.directoryRenames=false"]);
		});
	}

	test("directory-rename detection: the file git moves into the renamed folder", async () => {
		const repo = await fixture({ "old/a.txt": "a\n" });
		await repo.wtGit("mv", "old", "new");
		await repo.wtCommit("rename old to new");
		await repo.write("old/y.txt", "y\n");
		await repo.commitAll("add old/y.txt");
		const told = await mergeWrites(repo.wt, await repo.sha("main"));
		expect(told).toMatchObject({ kind: "told", paths: ["new/y.txt"] });
	});

	test("unrelated histories: git's own refusal", async () => {
		const repo = await fixture({});
		await repo.git("checkout", "-q", "--orphan", "other");
		await repo.write("other.txt", "x\n");
		await repo.commitAll("other history");
		const told = await mergeWrites(repo.wt, await repo.sha("other"));
		expect(told.kind).toBe("refused");
		if (told.kind === "refused") expect(told.reason).toContain("unrelated");
	});
});
