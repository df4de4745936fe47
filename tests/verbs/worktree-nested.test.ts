import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import type { WorktreeDropData, WorktreePruneData } from "../../src/verbs/worktree/schema.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { BASIC_CONFIG, makeRepo, makeTempDir, runGit, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * Git repositories inside a worktree (a clone made there, one in an
 * ignored folder, a submodule) go with its folder: drop and prune refuse
 * while one holds something that exists only there, and name it.
 */

const made: string[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const IDENTITY = ["-c", "user.name=Nested Person", "-c", "user.email=nested@example.com", "-c", "commit.gpgsign=false"];
const FILE_PROTOCOL = ["-c", "protocol.file.allow=always"];

async function repo(files?: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ config: BASIC_CONFIG, ...(files ? { files } : {}) });
	made.push(r.root, `${r.root}.wt`);
	return r;
}

/** A linked worktree on `agent/NAME` with the task record `start` writes (so prune may remove it). */
async function worktree(r: TestRepo, name: string): Promise<string> {
	const path = join(`${r.root}.wt`, name);
	const base = (await r.git("rev-parse", "HEAD")).trim();
	await r.git("worktree", "add", "-q", "-b", `agent/${name}`, path);
	const gitDir = (await runGit(path, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim();
	await mkdir(join(gitDir, "discern"), { recursive: true });
	await writeFile(
		join(gitDir, "discern", "task.json"),
		JSON.stringify({
			version: 1,
			id: `${name}-a1b2c3`,
			title: name,
			brief: "",
			branch: `agent/${name}`,
			base,
			from: "main",
			created_at: "2026-01-01T00:00:00Z",
			created_by: "discern",
		}),
	);
	return path;
}

/** Commit one file in the worktree and land it on main (fast-forward): the worktree is clean and its work has landed. */
async function landOne(r: TestRepo, path: string, name: string): Promise<void> {
	await writeFile(join(path, `${name}.txt`), name);
	await runGit(path, ["add", "-A"]);
	await runGit(path, [...IDENTITY, "commit", "-q", "-m", name]);
	await r.git("merge", "-q", "--ff-only", `agent/${name}`);
}

/** A repository of its own at `at`, with one commit unless `unborn`. */
async function nestedRepo(at: string, options: { unborn?: boolean } = {}): Promise<void> {
	await mkdir(at, { recursive: true });
	await runGit(at, ["init", "-q", "-b", "main"]);
	await writeFile(join(at, "notes.txt"), "only here\n");
	if (options.unborn) return;
	await runGit(at, ["add", "-A"]);
	await runGit(at, [...IDENTITY, "commit", "-q", "-m", "only here"]);
}

/** A bare repository with one commit on main: the remote of the clones below. */
async function upstreamRepo(): Promise<string> {
	const dir = await makeTempDir("discern-upstream-");
	made.push(dir);
	await nestedRepo(join(dir, "seed"));
	await runGit(dir, ["clone", "-q", "--bare", join(dir, "seed"), join(dir, "up.git")]);
	return join(dir, "up.git");
}

/** A clone at `at` whose every commit is on its remote. */
async function pushedClone(at: string): Promise<void> {
	const upstream = await upstreamRepo();
	await mkdir(dirname(at), { recursive: true });
	await runGit(dirname(at), ["clone", "-q", upstream, at]);
}

async function exists(path: string): Promise<boolean> {
	return (await stat(path).catch(() => null)) !== null;
}

function dropData(result: AnyResult): WorktreeDropData {
	if (!result.data) throw new Error(`no data: ${result.message}`);
	return result.data as WorktreeDropData;
}

/** Each repository found, without where its commits are kept: what the assertions compare. */
function judged(result: AnyResult): { path: string; kind: string; loses: string[] }[] {
	return dropData(result).nested_repositories.map(({ path, kind, loses }) => ({ path, kind, loses }));
}

describe("worktree drop and repositories inside the worktree", () => {
	test("--force refuses an untracked clone holding a commit only it has, names it, and changes nothing", async () => {
		const r = await repo();
		const path = await worktree(r, "clone");
		await nestedRepo(join(path, "scratch", "lib"));
		const head = (await runGit(join(path, "scratch", "lib"), ["rev-parse", "HEAD"])).trim();
		for (const dry_run of [true, false]) {
			const result = await invokeVerb("worktree drop", r.ctx(), { id: "clone-a1b2c3", force: true, dry_run });
			expectValidEnvelope("worktree drop", result);
			expect(result).toMatchObject({ ok: false, error: "dirty_worktree" });
			expect(result.message).toContain("scratch/lib (untracked");
			expect(result.message).toContain("1 commit no remote-tracking branch holds");
			expect(judged(result)).toEqual([{ path: "scratch/lib", kind: "untracked", loses: ["1 commit no remote-tracking branch holds"] }]);
			expect(result.ok ? "" : result.hints.join(" ")).toContain(`mv -n -- ${join(path, "scratch", "lib")} ${path}-lib`);
			expect(result.ok ? "" : result.hints.join(" ")).toContain("`discern worktree drop clone-a1b2c3 --force`");
		}
		expect(await exists(path)).toBe(true);
		expect((await runGit(join(path, "scratch", "lib"), ["rev-parse", "HEAD"])).trim()).toBe(head);
		expect((await r.git("branch", "--list", "agent/clone")).trim()).not.toBe("");
		expect((await r.git("for-each-ref", "refs/discern/recovery")).trim()).toBe("");
	});

	test("a repository with uncommitted changes in an ignored folder stops even a plain drop of landed work; once settled it goes, named", async () => {
		const r = await repo({ "README.md": "# fixture\n", ".gitignore": "vendor/\n" });
		const path = await worktree(r, "vendored");
		await landOne(r, path, "vendored");
		const lib = join(path, "vendor", "lib");
		await pushedClone(lib);
		await writeFile(join(lib, "notes.txt"), "edited, never committed\n");
		// Anything in the worktree can write that repository's config: its filter drivers never run as the person dropping it.
		const marker = join(r.root, "..", `${r.root.split("/").pop()}-filter-ran`);
		made.push(marker);
		await runGit(lib, ["config", "filter.spy.clean", `touch ${marker}; cat`]);
		await writeFile(join(lib, ".git", "info", "attributes"), "* filter=spy\n");
		const refused = await invokeVerb("worktree drop", r.ctx(), { id: "vendored-a1b2c3" });
		expect(await exists(marker)).toBe(false);
		expectValidEnvelope("worktree drop", refused);
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(judged(refused)).toEqual([{ path: "vendor/lib", kind: "ignored", loses: ["1 uncommitted change or untracked file"] }]);
		expect(refused.message).toContain("vendor/lib (ignored; 1 uncommitted change or untracked file)");
		expect(await exists(join(lib, "notes.txt"))).toBe(true);
		// Committed and pushed, it holds nothing that is not on its remote: the drop goes ahead and names what it deleted.
		await runGit(lib, [...IDENTITY, "commit", "-q", "-am", "edit"]);
		await runGit(lib, ["push", "-q", "origin", "main"]);
		const dropped = await invokeVerb("worktree drop", r.ctx(), { id: "vendored-a1b2c3" });
		expectValidEnvelope("worktree drop", dropped);
		expect(dropped.ok).toBe(true);
		expect(judged(dropped)).toEqual([{ path: "vendor/lib", kind: "ignored", loses: [] }]);
		expect(dropData(dropped).ignored).toEqual(["vendor/"]);
		expect(dropped.message).toContain("1 ignored file or folder in it was deleted, not saved: vendor/.");
		expect(await exists(path)).toBe(false);
	});

	test("a repository whose HEAD is an unborn branch, holding a file: --force names it (untracked), a plain drop names it (ignored)", async () => {
		const r = await repo({ "README.md": "# fixture\n", ".gitignore": "tmp/\n" });
		const untracked = await worktree(r, "unborn");
		await nestedRepo(join(untracked, "fresh"), { unborn: true });
		const forced = await invokeVerb("worktree drop", r.ctx(), { id: "unborn-a1b2c3", force: true });
		expectValidEnvelope("worktree drop", forced);
		expect(forced).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(judged(forced)).toEqual([{ path: "fresh", kind: "untracked", loses: ["1 uncommitted change or untracked file"] }]);
		expect(await exists(join(untracked, "fresh", "notes.txt"))).toBe(true);

		const ignored = await worktree(r, "unborn-ignored");
		await landOne(r, ignored, "unborn-ignored");
		await nestedRepo(join(ignored, "tmp", "fresh"), { unborn: true });
		const plain = await invokeVerb("worktree drop", r.ctx(), { id: "unborn-ignored-a1b2c3" });
		expectValidEnvelope("worktree drop", plain);
		expect(plain).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(judged(plain)).toEqual([{ path: "tmp/fresh", kind: "ignored", loses: ["1 uncommitted change or untracked file"] }]);
		expect(await exists(join(ignored, "tmp", "fresh", "notes.txt"))).toBe(true);
	});

	test("a submodule's commit that only its repository holds (under the worktree's git dir) stops the drop; pushed, the drop goes ahead", async () => {
		const r = await repo();
		const upstream = await upstreamRepo();
		await r.git(...FILE_PROTOCOL, "submodule", "add", "-q", upstream, "sub");
		await r.commitAll("add the submodule");
		const path = await worktree(r, "sub");
		await runGit(path, [...FILE_PROTOCOL, "submodule", "update", "--init", "-q"]);
		const sub = join(path, "sub");
		await runGit(sub, ["checkout", "-q", "-B", "main"]);
		await writeFile(join(sub, "work.txt"), "committed in the submodule only\n");
		await runGit(sub, ["add", "-A"]);
		await runGit(sub, [...IDENTITY, "commit", "-q", "-m", "submodule work"]);
		// The worktree records the new submodule commit and lands it: clean, nothing ahead of the trunk.
		await runGit(path, ["add", "sub"]);
		await runGit(path, [...IDENTITY, "commit", "-q", "-m", "bump sub"]);
		await r.git("merge", "-q", "--ff-only", "agent/sub");
		const refused = await invokeVerb("worktree drop", r.ctx(), { id: "sub-a1b2c3" });
		expectValidEnvelope("worktree drop", refused);
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(judged(refused)).toEqual([{ path: "sub", kind: "submodule", loses: ["1 commit no remote-tracking branch holds"] }]);
		expect(refused.message).toContain("sub (submodule; 1 commit no remote-tracking branch holds)");
		expect(await exists(join(sub, "work.txt"))).toBe(true);
		await runGit(sub, ["push", "-q", "origin", "main"]);
		const dropped = await invokeVerb("worktree drop", r.ctx(), { id: "sub-a1b2c3" });
		expectValidEnvelope("worktree drop", dropped);
		expect(dropped.ok).toBe(true);
		expect(judged(dropped)).toEqual([{ path: "sub", kind: "submodule", loses: [] }]);
		expect(await exists(path)).toBe(false);
	});

	test("a deinitialized submodule's repository under the worktree's git dir stops the drop, and still does once the folder is deleted by hand", async () => {
		const r = await repo();
		const upstream = await upstreamRepo();
		await r.git(...FILE_PROTOCOL, "submodule", "add", "-q", upstream, "sub");
		await r.commitAll("add the submodule");
		const path = await worktree(r, "deinit");
		await landOne(r, path, "deinit");
		await runGit(path, [...FILE_PROTOCOL, "submodule", "update", "--init", "-q"]);
		await runGit(join(path, "sub"), [...IDENTITY, "commit", "-q", "--allow-empty", "-m", "only in the submodule"]);
		const gitDir = (await runGit(path, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim();
		await runGit(path, ["submodule", "deinit", "-q", "-f", "sub"]);
		const refused = await invokeVerb("worktree drop", r.ctx(), { id: "deinit-a1b2c3" });
		expectValidEnvelope("worktree drop", refused);
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(dropData(refused).nested_repositories).toEqual([
			{ path: "sub", kind: "submodule", git_dir: join(gitDir, "modules", "sub"), checked_out: false, loses: ["1 commit no remote-tracking branch holds"] },
		]);
		expect(refused.ok ? "" : refused.hints.join(" ")).toContain(`cp -a -- ${join(gitDir, "modules", "sub")} ${path}-sub.git`);
		await rm(path, { recursive: true, force: true });
		const forced = await invokeVerb("worktree drop", r.ctx(), { id: "deinit-a1b2c3", force: true });
		expectValidEnvelope("worktree drop", forced);
		expect(forced).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(judged(forced)).toEqual([{ path: "sub", kind: "submodule", loses: ["1 commit no remote-tracking branch holds"] }]);
		expect(await exists(join(gitDir, "modules", "sub", "HEAD"))).toBe(true);
	});

	test("a bare repository in an ignored folder, holding a commit only it has, stops the drop", async () => {
		const r = await repo({ "README.md": "# fixture\n", ".gitignore": "cache/\n" });
		const path = await worktree(r, "bare");
		await landOne(r, path, "bare");
		const mirror = join(path, "cache", "mirror.git");
		await mkdir(mirror, { recursive: true });
		await runGit(mirror, ["init", "-q", "--bare", "-b", "main"]);
		const seed = await makeTempDir("discern-seed-");
		made.push(seed);
		await nestedRepo(seed);
		await runGit(seed, ["push", "-q", mirror, "main"]);
		const refused = await invokeVerb("worktree drop", r.ctx(), { id: "bare-a1b2c3" });
		expectValidEnvelope("worktree drop", refused);
		expect(refused).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(judged(refused)).toEqual([{ path: "cache/mirror.git", kind: "ignored", loses: ["1 commit no remote-tracking branch holds"] }]);
		expect(await exists(join(mirror, "HEAD"))).toBe(true);
	});

	test("with no repository inside, --force still drops, saves the work and names the ignored files it deleted", async () => {
		const r = await repo({ "README.md": "# fixture\n", ".gitignore": "*.local\n" });
		const path = await worktree(r, "plain");
		await writeFile(join(path, "new.txt"), "untracked");
		await writeFile(join(path, "settings.local"), "ignored");
		const result = await invokeVerb("worktree drop", r.ctx(), { id: "plain-a1b2c3", force: true });
		expectValidEnvelope("worktree drop", result);
		expect(result.ok).toBe(true);
		expect(dropData(result)).toMatchObject({ removed: true, nested_repositories: [], ignored: ["settings.local"] });
		expect(result.message).toContain("1 ignored file or folder in it was deleted, not saved: settings.local.");
		const wip = (await r.git("for-each-ref", "--format=%(refname)", "refs/discern/recovery")).split("\n").find((name) => name.endsWith("-wip"));
		expect(await r.git("show", `${wip}:new.txt`)).toBe("untracked");
		expect(await exists(path)).toBe(false);
	});
});

describe("worktree prune and repositories inside the worktree", () => {
	test("a landed worktree holding an ignored clone with a commit only it has is kept, the clone named; the others go", async () => {
		const r = await repo({ "README.md": "# fixture\n", ".gitignore": "vendor/\n*.log\n" });
		const keep = await worktree(r, "keep");
		await landOne(r, keep, "keep");
		await nestedRepo(join(keep, "vendor", "tool"));
		const go = await worktree(r, "go");
		await landOne(r, go, "go");
		await writeFile(join(go, "run.log"), "log");
		const result = await invokeVerb("worktree prune", r.ctx(), { yes: true });
		expectValidEnvelope("worktree prune", result);
		expect(result.ok).toBe(true);
		const data = result.data as WorktreePruneData;
		expect(data.removed.map((entry) => entry.path)).toEqual([go]);
		expect(data.skipped.find((entry) => entry.path === keep)?.reason).toContain("vendor/tool (ignored; 1 commit no remote-tracking branch holds)");
		expect(result.message).toContain(`1 ignored file or folder in ${go} (run.log)`);
		expect(await exists(join(keep, "vendor", "tool", "notes.txt"))).toBe(true);
	});
});
