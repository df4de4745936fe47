import { afterEach, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/**
 * issue 21, class 4: one trunk, resolved one way, everywhere. A decoy branch
 * whose committed discern.toml names itself, with origin/HEAD (a file any
 * agent can write) pointed at it, beside the real trunk `main` whose own
 * committed discern.toml names `main`.
 */
const CONFIG = `[repository]
trunk = "main"

[jobs]
test = "true"

[standards.coverage]
run = "echo DISCERN_METRIC coverage 91.7"
direction = "up"
limit = 90
margin = 0.5
`;

const made: WorktreeRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).flatMap((r) => r.cleanupDirs.map((dir) => rm(dir, { recursive: true, force: true }))));
});

/** No trunk named by the environment (a gate running this suite sets DISCERN_TRUNK): the repository's own files decide. */
const ENV = { DISCERN_TRUNK: undefined };

async function decoyRepo(): Promise<WorktreeRepo> {
	const r = await makeWorktreeRepo({ config: CONFIG });
	made.push(r);
	await r.wtWrite("work.txt", "work\n");
	await r.wtCommit("the task's work");
	await r.git("switch", "-q", "-c", "decoy");
	await r.write("discern.toml", CONFIG.replace('trunk = "main"', 'trunk = "decoy"').replace("limit = 90", "limit = 1"));
	await r.commitAll("a decoy that names itself the trunk");
	await r.git("switch", "-q", "main");
	await r.git("update-ref", "refs/remotes/origin/decoy", "decoy");
	await r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/decoy");
	return r;
}

async function json(args: string[], cwd: string): Promise<{ exitCode: number; result: Record<string, unknown> & { data?: Record<string, unknown> } }> {
	const run = await runDiscern([...args, "--json"], { cwd, env: ENV });
	return { exitCode: run.exitCode, result: onlyJson(run.stdout) as Record<string, unknown> & { data?: Record<string, unknown> } };
}

describe("a decoy origin/HEAD", () => {
	test("standards pin on the real trunk is refused: main does not move", async () => {
		const r = await decoyRepo();
		const before = await r.sha("main");
		const { exitCode, result } = await json(["standards", "pin"], r.root);
		expect(exitCode).toBe(1);
		expect(result.error).toBe("awaiting_consent");
		expect(result.message).toContain("This is the trunk `main`");
		expect(await r.sha("main")).toBe(before);
		expect(await r.git("status", "--porcelain")).toBe("");

		// Checked out on the decoy (whose discern.toml breaks the tie for itself there), pin is refused all the same.
		await r.git("switch", "-q", "decoy");
		const decoyBefore = await r.sha("decoy");
		const onDecoy = await json(["standards", "pin"], r.root);
		expect(onDecoy.result.error).toBe("awaiting_consent");
		expect(await r.sha("decoy")).toBe(decoyBefore);
	});

	test("status, worktree list, done, accept, update and standards pin report the same trunk: the one main's committed discern.toml names", async () => {
		const r = await decoyRepo();
		const status = await json(["status"], r.wt);
		const list = await json(["worktree", "list"], r.root);
		const done = await json(["done"], r.wt);
		const accept = await json(["accept", "--dry-run"], r.wt);
		const update = await json(["update", "--dry-run"], r.wt);
		const pin = await json(["standards", "pin", "--dry-run"], r.wt);
		const reported = {
			status: (status.result.data?.trunk as { name?: string } | undefined)?.name,
			"worktree list": list.result.data?.trunk,
			done: (done.result.data?.proof as { trunk?: { name?: string } } | null | undefined)?.trunk?.name,
			accept: accept.result.data?.trunk,
			update: update.result.data?.from,
			pin: pin.result.data?.trunk,
		};
		expect(reported).toEqual({ status: "main", "worktree list": "main", done: "main", accept: "main", update: "main", pin: "main" });
		// done says the committed discern.tomls disagree, and judged against main's (the decoy's floor of 1 is not the bar).
		expect((done.result.hints as string[]).join(" ")).toContain("Committed discern.tomls disagree on the trunk: `decoy`'s names `decoy`");
	});
});

describe("a verb that commits refuses on any branch a trunk candidate names", () => {
	test("update in a worktree whose branch origin/HEAD names merges nothing", async () => {
		const r = await makeWorktreeRepo({ config: CONFIG });
		made.push(r);
		await r.wtWrite("work.txt", "work\n");
		await r.wtCommit("the task's work");
		await r.write("trunk.txt", "trunk moves\n");
		await r.commitAll("the trunk moves");
		await r.git("update-ref", `refs/remotes/origin/${r.branch}`, r.branch);
		await r.git("symbolic-ref", "refs/remotes/origin/HEAD", `refs/remotes/origin/${r.branch}`);
		const before = await r.sha(r.branch);
		const { exitCode, result } = await json(["update"], r.wt);
		expect(exitCode).toBe(1);
		expect(result.error).toBe("awaiting_consent");
		expect(result.message).toContain("origin/HEAD");
		expect(await r.sha(r.branch)).toBe(before);
	});

	test("standards pin in a worktree whose branch init.defaultBranch names commits nothing", async () => {
		const r = await makeWorktreeRepo({ config: CONFIG.replace("limit = 90", "limit = 80") });
		made.push(r);
		await r.git("config", "init.defaultBranch", r.branch);
		const before = await r.sha(r.branch);
		const { result } = await json(["standards", "pin"], r.wt);
		expect(result.error).toBe("awaiting_consent");
		expect(result.message).toContain("init.defaultBranch");
		expect(await r.sha(r.branch)).toBe(before);
	});

	test("accept never lands, then deletes, a branch origin/HEAD names as the trunk", async () => {
		const r = await makeWorktreeRepo({ config: CONFIG });
		made.push(r);
		await r.wtWrite("work.txt", "work\n");
		await r.wtCommit("the task's work");
		expect((await json(["done"], r.wt)).result.ok).toBe(true);
		await r.git("update-ref", `refs/remotes/origin/${r.branch}`, r.branch);
		await r.git("symbolic-ref", "refs/remotes/origin/HEAD", `refs/remotes/origin/${r.branch}`);
		const [main, task] = [await r.sha("main"), await r.sha(r.branch)];
		const { exitCode, result } = await json(["accept", "--confirmed"], r.wt);
		expect(exitCode).toBe(1);
		expect(result.error).toBe("no_trunk");
		expect(result.message).toContain("origin/HEAD");
		expect([await r.sha("main"), await r.sha(r.branch)]).toEqual([main, task]);
	});
});
