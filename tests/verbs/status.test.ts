import { afterEach, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import type { StatusData } from "../../src/verbs/status/schema.ts";
import { status } from "../../src/verbs/status/status.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { BASIC_CONFIG, makeRepo, runGit, type TestRepo } from "../helpers/repo.ts";

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
	test("a clean configured main checkout: trunk, jobs by stage, next is a task worktree of its own", async () => {
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
		expect(data.next.action).toBe("discern start --title TITLE");
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

describe("status and the fleet", () => {
	async function linked(r: TestRepo, name: string, options: { commits?: number; task?: boolean } = {}): Promise<string> {
		const path = `${r.root}.wt/${name}`;
		const base = (await r.git("rev-parse", "HEAD")).trim();
		await r.git("worktree", "add", "-q", "-b", `agent/${name}`, path);
		for (let i = 0; i < (options.commits ?? 0); i++) {
			await Bun.write(`${path}/${name}-${i}.txt`, String(i));
			await runGit(path, ["add", "-A"]);
			await runGit(path, ["commit", "-q", "-m", `w${i}`]);
		}
		if (options.task) {
			await Bun.write(
				`${r.root}/.git/worktrees/${name}/discern/task.json`,
				JSON.stringify({
					version: 1,
					id: `${name}-a1b2c3`,
					title: `Title ${name}`,
					brief: `Brief ${name}`,
					branch: `agent/${name}`,
					base,
					from: "main",
					created_at: "2026-01-01T00:00:00Z",
					created_by: "discern",
				}),
			);
		}
		return path;
	}

	test("the main checkout without linked worktrees reports an empty fleet; a worktree reports no fleet", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		made.push({ ...r, remove: () => rm(`${r.root}.wt`, { recursive: true, force: true }) });
		const data = await statusOf(r);
		expect(data.worktrees).toEqual([]);
		expect(data.task).toBeUndefined();
	});

	test("the main checkout lists each linked worktree; a worktree discern started shows its task", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		made.push({ ...r, remove: () => rm(`${r.root}.wt`, { recursive: true, force: true }) });
		const path = await linked(r, "one", { commits: 2, task: true });
		await linked(r, "two");
		const data = await statusOf(r);
		expect(data.worktrees?.map((w) => [w.id, w.branch, w.clean, w.ahead, w.behind, w.proof])).toEqual([
			["one-a1b2c3", "agent/one", true, 2, 0, "missing"],
			[null, "agent/two", true, 0, 0, "missing"],
		]);
		const inside = await status(r.ctx({ cwd: path }), {});
		expect(inside.ok && inside.data?.task).toEqual({ id: "one-a1b2c3", title: "Title one", brief: "Brief one" });
		expect(inside.ok && inside.data?.worktrees).toBeUndefined();
	});

	test("next: proven work awaiting landing is reviewed first; landed worktrees discern started are pruned", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		made.push({ ...r, remove: () => rm(`${r.root}.wt`, { recursive: true, force: true }) });
		const landed = await linked(r, "landed", { task: true, commits: 1 });
		await r.git("merge", "-q", "--ff-only", "agent/landed");
		expect(landed).toBeString();
		const proven = await linked(r, "proven", { commits: 1, task: true });
		expect((await invokeVerb("done", r.ctx({ cwd: proven }))).ok).toBe(true);
		const first = await statusOf(r);
		expect(first.worktrees?.find((w) => w.branch === "agent/proven")?.proof).toBe("honored");
		expect(first.next.action).toBe(`review worktree proven-a1b2c3 at ${proven}; to land it, discern accept --target proven-a1b2c3`);
		expect(first.next.reason).not.toMatch(/discern (start|update|accept)/);
		await r.git("worktree", "remove", "--force", proven);
		const second = await statusOf(r);
		expect(second.next.action).toBe("discern worktree prune");
		// A fresh worktree (nothing committed beyond its base) has not landed: it is never offered for pruning.
		await r.git("worktree", "remove", "--force", landed);
		await linked(r, "fresh", { task: true });
		const third = await statusOf(r);
		expect(third.worktrees?.find((w) => w.branch === "agent/fresh")?.landed).toBe(false);
		expect(third.next.action).not.toBe("discern worktree prune");
	});
});

describe("status in a task worktree", () => {
	test("the loop's next steps: update when behind, accept with consent once proven", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		const started = await invokeVerb("start", r.ctx(), { title: "loop" });
		if (!started.ok) throw new Error(started.message);
		const path = String((started.data as { path: string }).path);
		try {
			const inWorktree = async () => {
				const result = await status(r.ctx({ cwd: path }), {});
				if (!result.ok || !result.data) throw new Error(result.message);
				return result.data;
			};
			await Bun.write(`${path}/fix.txt`, "fix\n");
			await runGit(path, ["add", "fix.txt"]);
			await runGit(path, ["commit", "-q", "-m", "fix"]);
			// The trunk moves on: the worktree is behind, and merging it in is `update`.
			await r.write("other.txt", "other\n");
			await r.commitAll("trunk moves");
			expect((await inWorktree()).next.action).toBe("discern update");

			await invokeVerb("update", r.ctx({ cwd: path }));
			const proven = await invokeVerb("done", r.ctx({ cwd: path }));
			expect(proven.ok).toBe(true);
			const next = (await inWorktree()).next;
			expect(next.action).toBe("relay the Proof line to the owner; once they consent, discern accept --confirmed");
			expect(next.reason).toContain("Proof: ");
		} finally {
			await rm(`${r.root}.worktrees`, { recursive: true, force: true });
		}
	});
});

describe("status and the practice coach", () => {
	test("with nothing more urgent (a clean trunk, next is to start a task), one hint carries the coach's next improvement", async () => {
		const r = await repo({ config: BASIC_CONFIG });
		const idle = await status(r.ctx(), {});
		expect(idle.data?.next.action).toBe("discern start --title TITLE");
		const coach = (idle.hints ?? []).find((hint) => hint.includes("practice coach"));
		expect(coach).toMatch(/^When there is time, the practice coach suggests \(\+\d+, score \d+\/100\): .+ `discern improvement` says more\.$/);
		// Mid-task the coach keeps quiet.
		await r.write("scratch.txt", "x\n");
		const busy = await status(r.ctx(), {});
		expect((busy.hints ?? []).some((hint) => hint.includes("practice coach"))).toBe(false);
	});
});
