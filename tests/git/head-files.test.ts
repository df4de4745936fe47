import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readHeadFiles } from "../../src/git/head-files.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** The logbook's "where it ran", read from git's files: it must agree with git, or say nothing. */
const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});

async function repo(options: Parameters<typeof makeRepo>[0] = {}): Promise<TestRepo> {
	const r = await makeRepo(options);
	made.push(r);
	return r;
}

const revParse = async (r: TestRepo, rev: string) => (await r.git("rev-parse", rev)).trim();

describe("readHeadFiles", () => {
	test("a loose branch ref, then the same once refs are packed", async () => {
		const r = await repo();
		const gitDir = join(r.root, ".git");
		const head = await revParse(r, "HEAD");
		expect(await readHeadFiles(gitDir, gitDir)).toEqual({ branch: "main", head });
		await r.git("pack-refs", "--all");
		expect(await readHeadFiles(gitDir, gitDir)).toEqual({ branch: "main", head });
	});

	test("a detached HEAD names no branch; an unborn branch names no commit", async () => {
		const r = await repo();
		const gitDir = join(r.root, ".git");
		const head = await revParse(r, "HEAD");
		await r.git("checkout", "-q", "--detach");
		expect(await readHeadFiles(gitDir, gitDir)).toEqual({ branch: null, head });
		const unborn = await repo({ commit: false });
		expect(await readHeadFiles(join(unborn.root, ".git"), join(unborn.root, ".git"))).toEqual({ branch: "main", head: null });
	});

	test("a linked worktree: HEAD in its own git dir, the branch ref in the common dir", async () => {
		const r = await repo();
		const path = `${r.root}-wt`;
		await r.git("worktree", "add", "-q", "-b", "feature", path);
		try {
			const gitDir = (await r.git("-C", path, "rev-parse", "--absolute-git-dir")).trim();
			expect(await readHeadFiles(gitDir, join(r.root, ".git"))).toEqual({ branch: "feature", head: await revParse(r, "feature") });
		} finally {
			await r.git("worktree", "remove", "--force", path);
		}
	});
});
