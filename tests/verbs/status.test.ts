import { afterEach, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { status } from "../../src/verbs/status/status.ts";
import type { StatusData } from "../../src/verbs/status/schema.ts";
import { BASIC_CONFIG, makeRepo, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
async function repo(options: Parameters<typeof makeRepo>[0] = {}): Promise<TestRepo> {
	const r = await makeRepo(options);
	made.push(r);
	return r;
}
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});

async function statusOf(r: TestRepo, env: Record<string, string> = {}): Promise<StatusData> {
	const result = await status(r.ctx({ env: { PATH: process.env.PATH, ...env } }), {});
	if (!result.ok || !result.data) throw new Error(`status failed: ${result.message}`);
	return result.data;
}

describe("status", () => {
	test("a clean configured main checkout: trunk, jobs by stage, next is a branch of its own", async () => {
		const r = await repo({ config: '[jobs]\nformat = "true"\nlint = "true"\ntypecheck = "true"\ntest = "true"\n[jobs.e2e]\nstage = "test"\nrun = "true"\n' });
		const data = await statusOf(r);
		expect(data.location).toBe("main");
		expect(data.branch).toBe("main");
		expect(data.head).toMatch(/^[0-9a-f]{7}$/);
		expect(data.trunk).toEqual({ name: "main", source: "existing_branch", exists: true });
		expect(data.clean).toBe(true);
		expect(data.jobs).toEqual({ fix: ["format"], build: [], check: ["lint", "typecheck"], test: ["test", "e2e"] });
		expect(data.ahead).toBe(0);
		expect(data.behind).toBe(0);
		expect(data.next.action).toBe("git switch -c BRANCH, then discern prepare");
	});

	test("changed files are listed with their kind; a dirty trunk points at a branch, a commit and the gate", async () => {
		const r = await repo({ config: BASIC_CONFIG, files: { "a.txt": "a", "b.txt": "b", "c.txt": "c" } });
		await r.write("a.txt", "changed");
		await rm(`${r.root}/b.txt`);
		await r.write("new file.txt", "spaces in the name");
		await r.git("add", "a.txt");
		await r.git("mv", "c.txt", "d.txt");
		const data = await statusOf(r);
		expect(data.clean).toBe(false);
		const byPath = Object.fromEntries(data.changes.files.map((file) => [file.path, file]));
		expect(byPath["a.txt"]).toEqual({ path: "a.txt", kind: "modified", staged: true });
		expect(byPath["b.txt"]?.kind).toBe("deleted");
		expect(byPath["d.txt"]?.kind).toBe("renamed");
		expect(byPath["new file.txt"]).toEqual({ path: "new file.txt", kind: "untracked", staged: false });
		expect(data.changes.total).toBe(4);
		expect(data.next.action).toBe("git switch -c BRANCH, git commit, then discern done");
	});

	test("more than 50 changes are counted, not all listed", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		for (let i = 0; i < 60; i++) await r.write(`many/f${i}.txt`, String(i));
		await r.git("add", "-A");
		const data = await statusOf(r);
		expect(data.changes.total).toBe(60);
		expect(data.changes.files.length).toBe(50);
		expect(data.changes.truncated).toBe(true);
	});

	test("ahead/behind are counted against the trunk", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		await r.git("switch", "-q", "-c", "feature");
		await r.write("f.txt", "1");
		await r.commitAll("one");
		await r.write("f.txt", "2");
		await r.commitAll("two");
		await r.git("switch", "-q", "main");
		await r.write("m.txt", "m");
		await r.commitAll("trunk moves");
		await r.git("switch", "-q", "feature");
		const data = await statusOf(r);
		expect(data.branch).toBe("feature");
		expect(data.ahead).toBe(2);
		expect(data.behind).toBe(1);
	});

	test("trunk: DISCERN_TRUNK beats the config, which beats what git suggests", async () => {
		const r = await repo({ config: `${BASIC_CONFIG}[repository]\ntrunk = "develop"\n` });
		await r.git("branch", "develop");
		await r.git("branch", "release");
		expect((await statusOf(r)).trunk).toEqual({ name: "develop", source: "config", exists: true });
		expect((await statusOf(r, { DISCERN_TRUNK: "release" })).trunk).toEqual({ name: "release", source: "env", exists: true });
	});

	test("a configured trunk that does not exist is reported, and next says so", async () => {
		const r = await repo({ config: `${BASIC_CONFIG}[repository]\ntrunk = "nope"\n` });
		const data = await statusOf(r);
		expect(data.trunk).toEqual({ name: "nope", source: "config", exists: false });
		expect(data.ahead).toBeNull();
		expect(data.next.reason).toContain("`nope`");
	});

	test("in a linked worktree the location is worktree", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		const path = `${r.root}.wt`;
		await r.git("worktree", "add", "-q", "-b", "agent/task", path);
		try {
			const result = await status(r.ctx({ cwd: path }), {});
			expect(result.data?.location).toBe("worktree");
			expect(result.data?.branch).toBe("agent/task");
			expect(result.data?.next.action).toBe("discern prepare");
		} finally {
			await r.git("worktree", "remove", "--force", path);
		}
	});

	test("from a subfolder, the root is the checkout root", async () => {
		const r = await repo({ config: BASIC_CONFIG, files: { "deep/er/file.txt": "x" } });
		const result = await status(r.ctx({ cwd: `${r.root}/deep/er` }), {});
		expect(result.data?.root).toBe(r.root);
	});

	test("no test job: next says to declare one", async () => {
		const r = await repo({ config: '[jobs]\nlint = "true"\n' });
		expect((await statusOf(r)).next.reason).toContain("No test-stage job");
	});

	test("an unborn repository asks for a first commit once configured", async () => {
		const r = await repo({ config: BASIC_CONFIG, commit: false });
		const data = await statusOf(r);
		expect(data.head).toBeNull();
		expect(data.next.action).toBe("git commit");
	});
});
