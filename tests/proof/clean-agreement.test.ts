import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { chmod, mkdir, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import type { StatusData } from "../../src/verbs/status/schema.ts";
import type { WorktreeListData } from "../../src/verbs/worktree/schema.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { connectInMemory } from "../helpers/mcp.ts";
import { BASIC_CONFIG, makeTempDir, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/**
 * `status` and `worktree list` judge a tree clean the way `done` does: a
 * tree `done` (and so `accept`) refuses as dirty is never shown clean, nor
 * its Proof honored with "ask the owner to land it". Each instance: a green
 * Proof in a linked worktree, then something `git status` does not show.
 */
const made: WorktreeRepo[] = [];
const scratch: string[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).flatMap((repo) => repo.cleanupDirs.map((path) => rm(path, { recursive: true, force: true }))));
	await Promise.all(scratch.splice(0).map((path) => rm(path, { recursive: true, force: true })));
});

const ctx = (cwd: string) => testContext(cwd, { env: { PATH: process.env.PATH, HOME: process.env.HOME } });

/** A linked worktree with a file in a folder of tracked files, and a green Proof for its HEAD. */
async function proven(): Promise<WorktreeRepo> {
	const repo = await makeWorktreeRepo({ config: BASIC_CONFIG, files: { "README.md": "# fixture\n", "src/app.py": "print('app')\n" } });
	made.push(repo);
	await repo.wtWrite("src/lib.py", "x = 1\n");
	await repo.wtCommit("work");
	const first = await invokeVerb("done", ctx(repo.wt));
	expect(first.ok).toBe(true);
	// Before anything is hidden, all agree: clean, Proof honored.
	expect(await statusIn(repo.wt)).toMatchObject({ clean: true, proof: { state: "honored" } });
	return repo;
}

async function statusIn(cwd: string): Promise<StatusData> {
	const result = await invokeVerb("status", ctx(cwd));
	expectValidEnvelope("status", result);
	if (!result.ok) throw new Error(result.message);
	return result.data as StatusData;
}

/** What each of done, status (in the worktree and in the main checkout) and worktree list says of the worktree. */
async function judgements(repo: WorktreeRepo) {
	const here = await statusIn(repo.wt);
	const listed = await invokeVerb("worktree list", ctx(repo.root));
	expectValidEnvelope("worktree list", listed);
	const entry = (listed.data as WorktreeListData).worktrees.find((item) => item.path === repo.wt);
	const fromMain = (await statusIn(repo.root)).worktrees?.find((item) => item.path === repo.wt);
	const gate: AnyResult = await invokeVerb("done", ctx(repo.wt));
	return { here, entry, fromMain, gate };
}

/** done refuses the tree as dirty, and no other view calls it clean or its Proof honored. */
async function expectAllDirty(repo: WorktreeRepo): Promise<StatusData> {
	const { here, entry, fromMain, gate } = await judgements(repo);
	expect(gate.ok ? null : gate.error, gate.message).toBe("dirty_worktree");
	expect(here.clean).toBe(false);
	expect(here.proof.state).not.toBe("honored");
	expect(here.next.action).not.toContain("land");
	expect(entry?.clean).toBe(false);
	expect(entry?.proof).not.toBe("honored");
	expect(fromMain?.clean).toBe(false);
	expect(fromMain?.proof).not.toBe("honored");
	return here;
}

describe("status and worktree list agree with done on what is clean", () => {
	test("an untracked file hidden by info/exclude", async () => {
		const repo = await proven();
		await writeFile(join(repo.root, ".git/info/exclude"), "conftest.py\n");
		await repo.wtWrite("conftest.py", "import os\n");
		const here = await expectAllDirty(repo);
		expect(here.changes.files).toContainEqual({ path: "conftest.py", kind: "untracked", staged: false });
	});

	test("an untracked file hidden only by core.excludesFile", async () => {
		const repo = await proven();
		const excludes = await makeTempDir("discern-excludes-");
		scratch.push(excludes);
		await writeFile(join(excludes, "ignore"), "*.local.py\n");
		await repo.git("config", "core.excludesFile", join(excludes, "ignore"));
		await repo.wtWrite("src/settings.local.py", "DEBUG = True\n");
		const here = await expectAllDirty(repo);
		expect(here.changes.files.map((file) => file.path)).toContain("src/settings.local.py");
	});

	test("a tracked file marked assume-unchanged, then edited", async () => {
		const repo = await proven();
		await repo.wtGit("update-index", "--assume-unchanged", "src/lib.py");
		await repo.wtWrite("src/lib.py", "x = 2\n");
		const here = await expectAllDirty(repo);
		expect(here.changes.files.map((file) => file.path)).toContain("src/lib.py");
	});

	test("a tracked file marked skip-worktree, then edited", async () => {
		const repo = await proven();
		await repo.wtGit("update-index", "--skip-worktree", "src/lib.py");
		await repo.wtWrite("src/lib.py", "x = 3\n");
		await expectAllDirty(repo);
	});

	test("an edit with its size and time put back, under the checkout's own stat shortcuts", async () => {
		const repo = await proven();
		await repo.wtGit("config", "core.checkStat", "minimal");
		await repo.wtGit("config", "core.trustctime", "false");
		// An old time, recorded in the index: the entry is not racily clean, so git trusts what its stat says.
		const file = join(repo.wt, "src/lib.py");
		const old = new Date("2001-01-01T00:00:00Z");
		await utimes(file, old, old);
		await repo.wtGit("update-index", "--refresh");
		// git keeps a change time to the second: the edit's must differ from the one the index recorded.
		await Bun.sleep(1100);
		await writeFile(file, "x = 9\n");
		await utimes(file, old, old);
		expect((await repo.wtGit("status", "--porcelain")).trim()).toBe("");
		await expectAllDirty(repo);
	});

	test("a FIFO in a folder of tracked files", async () => {
		const repo = await proven();
		const made = Bun.spawnSync(["mkfifo", join(repo.wt, "src/conftest.py")]);
		expect(made.exitCode).toBe(0);
		const here = await expectAllDirty(repo);
		expect(here.changes.files.map((file) => file.path)).toContain("src/conftest.py");
	});

	test("a .git file below the root, in a folder of tracked files", async () => {
		const repo = await proven();
		await repo.wtWrite("src/.git", "gitdir: /elsewhere\n");
		await expectAllDirty(repo);
	});

	test("an uncommitted .gitignore that ignores itself and a new file beside it", async () => {
		const repo = await proven();
		await repo.wtWrite("src/.gitignore", "*\n");
		await repo.wtWrite("src/conftest.py", "import os\n");
		await expectAllDirty(repo);
	});

	test("an uncommitted .gitignore that ignores itself in a new folder, with a new file beside it", async () => {
		const repo = await proven();
		await repo.wtWrite("src/sub/.gitignore", "*\n");
		await repo.wtWrite("src/sub/conftest.py", "import os\n");
		const here = await expectAllDirty(repo);
		expect(here.changes.files.map((file) => file.path).join("\n")).toContain("src/sub/.gitignore");
		// The agent's own view, over MCP, says the same.
		const { client, close } = await connectInMemory(repo.wt);
		try {
			const called = await client.callTool({ name: "discern_status", arguments: {} });
			const data = (called.structuredContent as { data: StatusData }).data;
			expect(data.clean).toBe(false);
			expect(data.proof.state).not.toBe("honored");
		} finally {
			await close();
		}
	});

	test("an uncommitted .gitignore deep in new folders, ignoring the folder it sits in", async () => {
		const repo = await proven();
		await repo.wtWrite("tools/a/b/.gitignore", "*\n");
		await repo.wtWrite("tools/a/b/run.py", "import os\n");
		await expectAllDirty(repo);
	});

	test("info/attributes converting the committed files", async () => {
		const repo = await proven();
		await mkdir(join(repo.root, ".git/info"), { recursive: true });
		await writeFile(join(repo.root, ".git/info/attributes"), "*.py text eol=crlf\n");
		await expectAllDirty(repo);
	});

	test("an edit inside a submodule whose .gitmodules says ignore = dirty", async () => {
		const library = await makeWorktreeRepo({ files: { "lib.txt": "lib\n" } });
		made.push(library);
		const repo = await makeWorktreeRepo({ config: BASIC_CONFIG });
		made.push(repo);
		await repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library.root, "lib");
		await repo.git("config", "-f", ".gitmodules", "submodule.lib.ignore", "dirty");
		await repo.commitAll("add lib, its edits ignored by status");
		await repo.wtGit("merge", "-q", "main");
		await repo.wtGit("-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init");
		expect((await invokeVerb("done", ctx(repo.wt))).ok).toBe(true);
		await writeFile(join(repo.wt, "lib", "lib.txt"), "edited\n");
		expect((await repo.wtGit("status", "--porcelain")).trim()).toBe("");
		await expectAllDirty(repo);
	});

	test("an untracked file in a submodule that only the submodule's info/exclude hides", async () => {
		const library = await makeWorktreeRepo({ files: { "lib.txt": "lib\n" } });
		made.push(library);
		const repo = await makeWorktreeRepo({ config: BASIC_CONFIG });
		made.push(repo);
		await repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library.root, "lib");
		await repo.commitAll("add lib");
		await repo.wtGit("merge", "-q", "main");
		await repo.wtGit("-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init");
		expect((await invokeVerb("done", ctx(repo.wt))).ok).toBe(true);
		const moduleDir = (await repo.wtGit("-C", "lib", "rev-parse", "--path-format=absolute", "--git-dir")).trim();
		await mkdir(join(moduleDir, "info"), { recursive: true });
		await writeFile(join(moduleDir, "info", "exclude"), "conftest.py\n");
		await writeFile(join(repo.wt, "lib", "conftest.py"), "import os\n");
		await expectAllDirty(repo);
	});

	test("an executable bit flipped under the checkout's own core.fileMode = false", async () => {
		const repo = await proven();
		await repo.wtGit("config", "core.fileMode", "false");
		await chmod(join(repo.wt, "src/lib.py"), 0o755);
		expect((await repo.wtGit("status", "--porcelain")).trim()).toBe("");
		await expectAllDirty(repo);
	});

	test("a tracked file a sparse checkout removed from disk", async () => {
		const repo = await proven();
		await repo.wtGit("sparse-checkout", "set", "--no-cone", "/*", "!/README.md");
		expect(existsSync(join(repo.wt, "README.md"))).toBe(false);
		expect((await repo.wtGit("status", "--porcelain")).trim()).toBe("");
		const here = await expectAllDirty(repo);
		expect(here.changes.files.map((file) => file.path)).toContain("README.md");
	});

	test("an edit a clean filter named through core.attributesFile hides", async () => {
		const repo = await proven();
		const scratchDir = await makeTempDir("discern-attrs-");
		scratch.push(scratchDir);
		await writeFile(join(scratchDir, "attrs"), "README.md filter=liar\n");
		await repo.wtGit("config", "core.attributesFile", join(scratchDir, "attrs"));
		await repo.wtGit("config", "filter.liar.clean", "git show HEAD:README.md");
		// Same size, so only the content differs; the filter prints the committed blob instead.
		await repo.wtWrite("README.md", "# fixturE\n");
		expect((await repo.wtGit("status", "--porcelain")).trim()).toBe("");
		await expectAllDirty(repo);
	});
});
