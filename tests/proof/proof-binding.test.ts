import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { done } from "../../src/proof/done.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * A hostile review's cases where the files were the commit's, yet what the
 * jobs read, or what the Proof records, was not: each asserts no Proof.
 */

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});

async function repo(config: string, files: Record<string, string> = { "README.md": "# fixture\n" }): Promise<TestRepo> {
	const r = await makeRepo({ config, files });
	made.push(r);
	return r;
}

type Outcome = { ok: boolean; error?: string; message: string; data?: { failed_stage: string | null } };

async function runDone(r: TestRepo): Promise<Outcome> {
	const result: AnyResult = await done(r.ctx({ env: { PATH: process.env.PATH } }), {});
	expectValidEnvelope("done", result);
	return result as Outcome;
}

async function proofWritten(r: TestRepo): Promise<boolean> {
	return Bun.file(join(r.root, ".git", "discern", "proof.json")).exists();
}

// A lint job that finds its files the way pre-commit and many linters do: through git's index.
const LINT_LISTED = `[jobs]\nlint = "git ls-files -z '*.sh' | xargs -0 -r -n1 sh -n"\n`;

describe("the checkout's own index is part of the tree", () => {
	test("a committed file staged as deleted (the same bytes still on disk) is an uncommitted change: a job listing files through git would skip it", async () => {
		const r = await repo(LINT_LISTED, { "good.sh": "echo ok\n" });
		await r.write("broken.sh", "if then fi (\n");
		await r.commitAll("add broken.sh");
		await r.git("rm", "-q", "--cached", "broken.sh");
		const result = await runDone(r);
		expect(result).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(result.message).toContain("broken.sh");
		expect(await proofWritten(r)).toBe(false);
	});

	test("content staged that the commit does not hold is a change, though the file on disk is the committed one", async () => {
		const r = await repo(`[jobs]\ntest = "git show :value.txt | grep -qx good"\n`, { "value.txt": "bad\n" });
		await r.write("value.txt", "good\n");
		await r.git("add", "value.txt");
		await r.write("value.txt", "bad\n");
		const result = await runDone(r);
		expect(result).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(result.message).toContain("value.txt");
	});

	test("an index whose own tree cache vouches for a folder it changed is read entry by entry (diff-index --cached trusts that cache)", async () => {
		const r = await repo(LINT_LISTED, { "src/good.sh": "echo ok\n" });
		await r.write("src/bad.sh", "if then fi (\n");
		await r.commitAll("add src/bad.sh");
		// A full tree cache (read-tree writes it), then the entry renamed in place and the checksum made right again.
		await r.git("read-tree", "HEAD");
		const indexPath = join(r.root, ".git", "index");
		const bytes = Buffer.from(await Bun.file(indexPath).arrayBuffer());
		const body = bytes.subarray(0, bytes.length - 20);
		const at = body.indexOf("src/bad.sh\0");
		body.write("src/bad.sx", at);
		await Bun.write(indexPath, Buffer.concat([body, createHash("sha1").update(body).digest()]));
		expect((await r.git("ls-files")).split("\n")).toContain("src/bad.sx");
		expect(await r.git("diff-index", "--cached", "--name-only", "HEAD", "--")).toBe("");
		const result = await runDone(r);
		expect(result).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(result.message).toContain("src/bad.sx");
		expect(await proofWritten(r)).toBe(false);
	});

	test("a job that leaves a FIFO where the index belongs fails the look at once, never waited on (gate.timeout is 600 s)", async () => {
		const r = await repo('[jobs]\ntest = "G=$(git rev-parse --git-dir); rm -f $G/index; mkfifo $G/index"\n');
		const started = performance.now();
		const result = await runDone(r);
		expect(performance.now() - started).toBeLessThan(10_000);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.message).toContain("the index is not a regular file");
		await rm(join(r.root, ".git", "index"));
	}, 20_000);

	test("a job that rewrites a split index's shared file (the index's own file untouched) is drift", async () => {
		const jobs = `[jobs.swap]\nstage = "fix"\nrun = "cp .git/forged-index .git/sharedindex.*"\n[jobs.lint]\nstage = "check"\nrun = ${JSON.stringify("git ls-files -z '*.sh' | xargs -0 -r -n1 sh -n")}\n`;
		const r = await repo(jobs, { "good.sh": "echo ok\n" });
		await r.write("broken.sh", "if then fi (\n");
		await r.commitAll("add broken.sh");
		await r.git("update-index", "--split-index");
		const shared = (await readdir(join(r.root, ".git"))).filter((name) => name.startsWith("sharedindex."));
		expect(shared.length).toBe(1);
		// The entries without broken.sh, ending in the shared file's own last 20 bytes (all .git/index checks of it).
		const forged = join(r.root, ".git", "forged-index");
		await r.git("read-tree", `--index-output=${forged}`, "HEAD~1");
		const original = Buffer.from(await Bun.file(join(r.root, ".git", shared[0] ?? "")).arrayBuffer());
		const entries = Buffer.from(await Bun.file(forged).arrayBuffer());
		await Bun.write(forged, Buffer.concat([entries.subarray(0, entries.length - 20), original.subarray(original.length - 20)]));
		// Whether git reads the forged entries or gives up on them, the lint job did not read the commit's: drift, no Proof.
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(await proofWritten(r)).toBe(false);
	});

	test("a job that changes the index mid-run is drift, and the index back as committed gets its Proof", async () => {
		const r = await repo(`[jobs]\ntest = "git rm -q --cached README.md"\n`);
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.message).toContain("README.md");
		expect(await proofWritten(r)).toBe(false);
		await r.git("reset", "-q");
		await r.write("discern.toml", `[jobs]\ntest = "git add -A"\n`);
		await r.commitAll("a job that stages nothing new");
		expect((await runDone(r)).ok).toBe(true);
	});
});

describe("git in a job reads the checkout the gate judged", () => {
	test("git's repository variables in the caller's environment (a hook running discern, an agent's shell) do not reach the jobs", async () => {
		const r = await repo(LINT_LISTED, { "good.sh": "echo ok\n" });
		await r.write("broken.sh", "if then fi (\n");
		await r.commitAll("add broken.sh");
		// An index that lists only good.sh, and configuration that would hide nothing else: each would have lint skip broken.sh.
		const other = join(r.root, ".git", "other-index");
		await r.git("read-tree", `--index-output=${other}`, "HEAD~1");
		for (const env of [{ GIT_INDEX_FILE: other }, { GIT_DIR: join(r.root, ".git"), GIT_WORK_TREE: join(r.root, "nowhere") }]) {
			const result: AnyResult = await done(r.ctx({ env: { PATH: process.env.PATH, ...env } }), {});
			expectValidEnvelope("done", result);
			expect({ env, ok: result.ok, stage: (result as Outcome).data?.failed_stage }).toEqual({ env, ok: false, stage: "check" });
		}
	});
});

describe("history as the commits record it, for a job's git too", () => {
	// Lints only what the branch changed: the commit's own parents decide what that is.
	const CHANGED_ONLY = `[jobs]\nlint = ${JSON.stringify("git diff --name-only $DISCERN_TRUNK...HEAD -- '*.sh' | while read f; do sh -n \"$f\" || exit 1; done")}\n`;

	async function branchWithBrokenScript(): Promise<{ r: TestRepo; head: string; decoy: string }> {
		const r = await repo(CHANGED_ONLY, { "good.sh": "echo ok\n" });
		await r.git("switch", "-q", "-c", "feature");
		await r.write("broken.sh", "if then fi (\n");
		await r.commitAll("add broken.sh");
		const head = (await r.git("rev-parse", "HEAD")).trim();
		// A commit with the trunk's tree, whose history says nothing changed.
		const decoy = (await r.git("commit-tree", "main^{tree}", "-p", "main", "-m", "decoy")).trim();
		return { r, head, decoy };
	}

	test("a replace ref (in .git, in no commit) showing a job another commit for HEAD changes nothing", async () => {
		const { r, head, decoy } = await branchWithBrokenScript();
		await r.git("replace", head, decoy);
		const result = await runDone(r);
		expect(result).toMatchObject({ ok: false, error: "gate_failed" });
		expect(result.data?.failed_stage).toBe("check");
	});

	test("a replace ref the repository's own configuration turns on (core.useReplaceRefs wins over GIT_NO_REPLACE_OBJECTS) changes nothing", async () => {
		const { r, head, decoy } = await branchWithBrokenScript();
		await r.git("replace", head, decoy);
		await r.git("config", "core.useReplaceRefs", "true");
		const result = await runDone(r);
		expect(result).toMatchObject({ ok: false, error: "gate_failed" });
	});

	test("a job's git prints nothing of discern's settings (no graft advice in its output)", async () => {
		const r = await repo('[jobs]\ntest = "git log -1 --format=%s; exit 1"\n');
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		const log = await Bun.file((await Array.fromAsync(new Bun.Glob(".git/discern/runs/*/*test.log").scan({ cwd: r.root, absolute: true })))[0] ?? "").text();
		expect(log).toBe("initial\n");
	});

	test("a graft file making HEAD the trunk's parent (so the branch changed nothing since their merge base) changes nothing", async () => {
		const { r, head } = await branchWithBrokenScript();
		await Bun.write(join(r.root, ".git", "info", "grafts"), `${(await r.git("rev-parse", "main")).trim()} ${head}\n`);
		const result = await runDone(r);
		expect(result).toMatchObject({ ok: false, error: "gate_failed" });
	});
});

describe("a standard is judged by what its measurement printed", () => {
	test("its log replaced by path while it runs (any process can write there) is not what is read", async () => {
		const replace = "f=$(ls -t .git/discern/runs/*/*standard_coverage.log | head -1); rm -f $f; echo 'DISCERN_METRIC coverage 99' > $f";
		const r = await repo(
			`[jobs]\ntest = "true"\n[standards.coverage]\nrun = ${JSON.stringify(`echo DISCERN_METRIC coverage 40; ${replace}`)}\ndirection = "up"\nlimit = 90\n`,
		);
		const result = (await done(r.ctx({ env: { PATH: process.env.PATH } }), {})) as AnyResult & { data?: { standards?: unknown[] } };
		expectValidEnvelope("done", result);
		expect(result.ok).toBe(false);
		expect(result.data?.standards).toEqual([expect.objectContaining({ name: "coverage", verdict: "regressed", value: 40 })]);
		expect(await proofWritten(r)).toBe(false);
	});
});

describe("a trunk picked only because a branch of its name exists", () => {
	test("a `main` made beside the trunk `master`: master's committed discern.toml decides, and a decoy naming itself is said on the result", async () => {
		const cases = [
			// The decoy's discern.toml names no trunk: master's committed one is the only word, so master is the trunk.
			{ own: '[jobs]\ntest = "true"\n', trunk: "master", said: null },
			// The decoy's names itself, as this branch's does: a contest this branch's word breaks, said on every run.
			{
				own: '[repository]\ntrunk = "main"\n[jobs]\ntest = "true"\n',
				trunk: "main",
				said: "Committed discern.tomls disagree on the trunk: `master`'s names `master`; the Proof is judged against `main`.",
			},
		];
		for (const { own, trunk, said } of cases) {
			const r = await repo('[repository]\ntrunk = "master"\n[jobs]\ntest = "true"\n');
			await r.git("branch", "-m", "main", "master");
			await r.git("switch", "-q", "-c", "task");
			await r.write("discern.toml", own);
			await r.commitAll("the trunk's name dropped, or made the decoy's");
			await r.git("branch", "main", "HEAD");
			const result = (await done(r.ctx({ env: { PATH: process.env.PATH } }), {})) as AnyResult & { data?: { proof?: { trunk: { name: string } } } };
			expect(result.data?.proof?.trunk.name).toBe(trunk);
			if (said) expect(result.hints?.join(" ")).toContain(said);
		}
	});

	test("DISCERN_TRUNK settles it: no warning", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await r.git("switch", "-q", "-c", "task");
		await r.write("notes.txt", "x\n");
		await r.commitAll("work");
		const result = (await done(r.ctx({ env: { PATH: process.env.PATH, DISCERN_TRUNK: "main" } }), {})) as AnyResult;
		expect(result.ok).toBe(true);
		expect((result.hints ?? []).some((hint) => hint.includes("because a branch of that name exists"))).toBe(false);
	});
});
