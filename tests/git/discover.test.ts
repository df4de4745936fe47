import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { discoverRepository } from "../../src/git/discover.ts";
import { makeRepo, makeTempDir, runGit, type TestRepo } from "../helpers/repo.ts";

/** File-system discovery must agree with `git rev-parse` wherever it answers at all. */
let repo: TestRepo;
let scratch: string;
beforeAll(async () => {
	repo = await makeRepo({ files: { "deep/er/file.txt": "x" } });
	scratch = await makeTempDir();
	await repo.git("worktree", "add", "-q", "-b", "agent/task", join(scratch, "wt"));
	await symlink(join(repo.root, "deep"), join(scratch, "link"));
	// A submodule: its .git is a file pointing into the superproject's .git/modules.
	const library = await makeRepo({ files: { "lib.txt": "lib" } });
	await repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library.root, "vendor/lib");
	await library.remove();
});
afterAll(async () => {
	await repo.git("worktree", "remove", "--force", join(scratch, "wt"));
	await repo.remove();
	await rm(scratch, { recursive: true, force: true });
});

async function revParse(cwd: string) {
	const [root, gitDir, commonDir] = (await runGit(cwd, ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"]))
		.trim()
		.split("\n");
	return { root, gitDir, commonDir };
}

describe("discoverRepository", () => {
	const places = () => ({
		"the main checkout": repo.root,
		"a subfolder": join(repo.root, "deep/er"),
		"a linked worktree": join(scratch, "wt"),
		"a worktree's subfolder": join(scratch, "wt/deep"),
		"a symlinked folder": join(scratch, "link/er"),
	});
	for (const name of ["the main checkout", "a subfolder", "a linked worktree", "a worktree's subfolder", "a symlinked folder"] as const) {
		test(`agrees with git rev-parse in ${name}`, async () => {
			const cwd = places()[name];
			expect((await discoverRepository(cwd, {})) as unknown).toEqual(await revParse(cwd));
		});
	}

	test("leaves a submodule (its git dir sets core.worktree) to git", async () => {
		expect(await discoverRepository(join(repo.root, "vendor/lib"), {})).toBeNull();
	});

	test("steps aside when git's environment overrides apply, or outside any repository", async () => {
		expect(await discoverRepository(repo.root, { GIT_DIR: join(repo.root, ".git") })).toBeNull();
		const outside = await makeTempDir();
		await mkdir(join(outside, "x"));
		expect(await discoverRepository(join(outside, "x"), {})).toBeNull();
		await rm(outside, { recursive: true, force: true });
	});
});
