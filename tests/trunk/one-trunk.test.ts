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

/** A trunk whose committed discern.toml pre-authorizes every path: a decoy that wins the trunk lands without anyone asked. */
function authorizing(trunk: string): string {
	return `[repository]\ntrunk = "${trunk}"\n\n[jobs]\ntest = "true"\n\n[scopes.everything]\npaths = ["**"]\n\n[acceptance]\npre_authorized = ["everything"]\n`;
}

describe("a decoy trunk an agent makes never receives a landing", () => {
	test("a branch beside the trunk whose committed discern.toml the task also names: accept refuses the contest, nothing lands", async () => {
		const r = await makeWorktreeRepo({ config: authorizing("main") });
		made.push(r);
		// In its worktree, the agent names `master` the trunk, commits, and makes that branch at its own commit.
		await r.wtWrite("discern.toml", authorizing("master"));
		await r.wtWrite("work.txt", "work\n");
		await r.wtCommit("name master the trunk");
		await r.wtGit("branch", "master", "HEAD");
		await r.wtWrite("more.txt", "more\n");
		await r.wtCommit("the task's work");
		expect((await json(["done"], r.wt)).result.ok).toBe(true);
		const before = [await r.sha("main"), await r.sha("master")];
		const { exitCode, result } = await json(["accept"], r.wt);
		expect(exitCode).toBe(1);
		expect(result.error).toBe("no_trunk");
		expect(result.message).toContain("disagree on the trunk");
		expect([await r.sha("main"), await r.sha("master")]).toEqual(before);
	});

	test("a trunk named develop and a decoy main that names itself: accept from the main checkout refuses, nothing lands", async () => {
		const r = await makeWorktreeRepo({ config: authorizing("develop"), branch: "develop" });
		made.push(r);
		await r.git("switch", "-q", "-c", "main");
		await r.write("discern.toml", authorizing("main"));
		await r.commitAll("a decoy main that names itself");
		await r.git("switch", "-q", "develop");
		await r.wtWrite("work.txt", "work\n");
		await r.wtCommit("the task's work");
		expect((await json(["done"], r.wt)).result.ok).toBe(true);
		const before = [await r.sha("develop"), await r.sha("main")];
		const { exitCode, result } = await json(["accept", "--target", r.branch], r.root);
		expect(exitCode).toBe(1);
		expect(result.error).toBe("no_trunk");
		expect(result.message).toContain("`develop`");
		expect([await r.sha("develop"), await r.sha("main")]).toEqual(before);
	});

	test("a trunk named develop and origin/HEAD pointed at a decoy that names itself: the worktree's verbs name develop, accept lands nothing", async () => {
		const r = await makeWorktreeRepo({ config: authorizing("develop"), branch: "develop" });
		made.push(r);
		await r.git("switch", "-q", "-c", "decoy");
		await r.write("discern.toml", authorizing("decoy"));
		await r.commitAll("a decoy that names itself");
		await r.git("switch", "-q", "develop");
		await r.git("update-ref", "refs/remotes/origin/decoy", "decoy");
		await r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/decoy");
		const status = await json(["status"], r.wt);
		expect((status.result.data?.trunk as { name?: string } | undefined)?.name).toBe("develop");
		await r.wtWrite("work.txt", "work\n");
		await r.wtCommit("the task's work");
		const before = [await r.sha("develop"), await r.sha("decoy")];
		const accept = await json(["accept"], r.wt);
		expect(accept.result.data?.trunk).toBe("develop");
		expect(accept.result.error).toBe("no_trunk");
		expect([await r.sha("develop"), await r.sha("decoy")]).toEqual(before);
	});
});

describe("a trunk name in a printed command", () => {
	test("status's git merge for a main checkout behind a trunk with shell words in its name is quoted", async () => {
		const trunk = "t;touch$" + "{IFS}PWNED;#";
		const r = await makeWorktreeRepo({ config: CONFIG.replace('trunk = "main"', `trunk = '${trunk}'`) });
		made.push(r);
		await r.git("branch", trunk, "main");
		await r.git("switch", "-q", trunk);
		await r.write("trunk.txt", "trunk moves\n");
		await r.commitAll("the trunk moves");
		await r.git("switch", "-q", "main");
		const run = await runDiscern(["status", "--json"], { cwd: r.root, env: { DISCERN_TRUNK: trunk } });
		const result = onlyJson(run.stdout) as { data?: { next?: { action?: string } } };
		expect(result.data?.next?.action).toBe(`git merge 't;touch\${IFS}PWNED;#'`);
	});
});

/** A trunk's config without [repository].trunk: the trunk is then whatever the branches and git's clues say. */
function unnamed(preAuthorized: string): string {
	return `[jobs]\ntest = "true"\n\n[scopes.everything]\npaths = ["**"]\n\n[scopes.docs]\npaths = ["docs/**"]\n\n[acceptance]\npre_authorized = ["${preAuthorized}"]\n`;
}

describe("pre-authorized scopes grant something only on a trunk the person's side names", () => {
	test("origin/HEAD pointed at a decoy carrying its own grant: accept asks, nothing lands", async () => {
		const r = await makeWorktreeRepo({ config: unnamed("docs") });
		made.push(r);
		await r.wtWrite("discern.toml", unnamed("everything"));
		await r.wtCommit("a grant of everything");
		await r.wtGit("branch", "decoy", "HEAD");
		await r.git("update-ref", "refs/remotes/origin/decoy", "decoy");
		await r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/decoy");
		await r.wtWrite("src/x.py", "evil = 1\n");
		await r.wtCommit("code");
		expect((await json(["done"], r.wt)).result.ok).toBe(true);
		const before = [await r.sha("main"), await r.sha("decoy")];
		const { exitCode, result } = await json(["accept"], r.wt);
		expect(exitCode).toBe(1);
		expect(result.error).toBe("awaiting_consent");
		expect(result.message).toContain("origin/HEAD");
		expect([await r.sha("main"), await r.sha("decoy")]).toEqual(before);
	});

	test("a branch master that names itself beside a main that names nothing: accept from the main checkout asks", async () => {
		const r = await makeWorktreeRepo({ config: unnamed("docs") });
		made.push(r);
		await r.git("switch", "-q", "-c", "master");
		await r.write("discern.toml", `[repository]\ntrunk = "master"\n\n${unnamed("everything")}`);
		await r.commitAll("master names itself and grants everything");
		await r.git("switch", "-q", "main");
		await r.wtGit("merge", "-q", "master", "-m", "take master");
		await r.wtWrite("src/x.py", "evil = 1\n");
		await r.wtCommit("code");
		const before = [await r.sha("main"), await r.sha("master")];
		const { result } = await json(["accept", "--target", r.branch], r.root);
		expect(result.error).toBe("awaiting_consent");
		expect([await r.sha("main"), await r.sha("master")]).toEqual(before);
	});

	test("the main checkout on the trunk it names: a docs change still lands without asking", async () => {
		const r = await makeWorktreeRepo({ config: unnamed("docs") });
		made.push(r);
		await r.wtWrite("docs/a.md", "docs\n");
		await r.wtCommit("docs");
		const { result } = await json(["accept"], r.wt);
		expect(result.ok).toBe(true);
		expect((result.data as { consent?: string }).consent).toBe("pre_authorized");
	});
});

describe("the main checkout's branch votes from a worktree, never as its own judge", () => {
	test("on develop, which names itself, beside an old main that names nothing: the worktree names develop", async () => {
		const r = await makeWorktreeRepo({ config: CONFIG.replace('trunk = "main"', 'trunk = "develop"'), branch: "develop" });
		made.push(r);
		await r.git("branch", "main", "develop");
		await r.git("switch", "-q", "main");
		await r.write("discern.toml", CONFIG.replace('trunk = "main"\n', ""));
		await r.commitAll("an old main without a trunk");
		await r.git("switch", "-q", "develop");
		const there = await json(["status"], r.wt);
		expect((there.result.data?.trunk as { name?: string }).name).toBe("develop");
	});

	test("a contested trunk: the worktree's status says so instead of sending it to accept", async () => {
		const r = await makeWorktreeRepo({ config: CONFIG });
		made.push(r);
		await r.wtWrite("discern.toml", CONFIG.replace('trunk = "main"', 'trunk = "master"'));
		await r.wtCommit("name master the trunk");
		await r.wtGit("branch", "master", "HEAD");
		await r.wtWrite("more.txt", "more\n");
		await r.wtCommit("the task's work");
		expect((await json(["done"], r.wt)).result.ok).toBe(true);
		const { result } = await json(["status"], r.wt);
		const data = result.data as { trunk: { contested?: unknown[] }; next: { action: string } };
		expect(data.trunk.contested?.length).toBeGreaterThan(0);
		expect(data.next.action).toBe("ask a person to settle which branch is the trunk");
	});
});
