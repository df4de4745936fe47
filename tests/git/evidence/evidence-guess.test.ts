import { afterEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EvidenceOutcome, openEvidenceIndex } from "../../../src/git/evidence/evidence.ts";
import { openObjectReader } from "../../../src/git/object-reader.ts";
import { makeRepo, runGit, type TestRepo } from "../../helpers/repo.ts";

/**
 * The evidence starts on the repository the caller discovered and the
 * reader's HEAD while git says where things are (evidence.ts,
 * `openEvidenceIndex`). A guess git does not confirm in full must leave no
 * trace: the evidence is then git's answer's, as it is without a guess.
 */
const made: TestRepo[] = [];
let privateTemp = "";
const savedTmp = process.env.TMPDIR;

afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
	if (privateTemp) await rm(privateTemp, { recursive: true, force: true });
	privateTemp = "";
	if (savedTmp === undefined) delete process.env.TMPDIR;
	else process.env.TMPDIR = savedTmp;
});

async function repo(files: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ files });
	made.push(r);
	return r;
}

/** Evidence for `r` with a guess, in a temp folder of its own (to count the private folders left behind). */
async function evidence(
	r: TestRepo,
	readerAt: TestRepo | string,
	discovered: { gitDir: string; commonDir: string },
): Promise<{ opened: EvidenceOutcome; left: () => Promise<string[]> }> {
	privateTemp = await mkdtemp(join(tmpdir(), "evidence-guess-"));
	process.env.TMPDIR = privateTemp;
	const reader = openObjectReader(typeof readerAt === "string" ? readerAt : readerAt.root);
	try {
		const opened = await openEvidenceIndex(r.root, "HEAD", { reader, discovered });
		return { opened, left: () => readdir(privateTemp) };
	} finally {
		await reader.close();
	}
}

async function headOf(r: TestRepo): Promise<string> {
	return (await r.git("rev-parse", "HEAD")).trim();
}

describe("the evidence's guess", () => {
	test("confirmed: the evidence is the commit HEAD names, its first look clean, one private folder gone at close", async () => {
		const r = await repo({ "a.txt": "a\n", "src/b.txt": "b\n" });
		const { opened, left } = await evidence(r, r, { gitDir: join(r.root, ".git"), commonDir: join(r.root, ".git") });
		if (!opened.ok) throw new Error(opened.reason);
		expect(opened.index.commit).toBe(await headOf(r));
		const state = await opened.index.status();
		expect(state).toEqual({ head: await headOf(r), branch: "main", changes: [] });
		expect((await left()).length).toBe(1);
		await opened.index.close();
		expect(await left()).toEqual([]);
	});

	test("a reader whose HEAD is another commit: the evidence is the checkout's own HEAD, and an edit there is still seen", async () => {
		// A linked worktree shares the objects and has a HEAD of its own: its reader names another commit, as HEAD moved between two reads would.
		const r = await repo({ "a.txt": "a\n" });
		const linked = join(r.root, "..", `${r.root.split("/").at(-1)}-linked`);
		await r.git("worktree", "add", "-q", "-b", "other", linked);
		await runGit(linked, ["commit", "-q", "--allow-empty", "-m", "elsewhere"]);
		await r.write("a.txt", "edited\n");
		try {
			const { opened, left } = await evidence(r, linked, { gitDir: join(r.root, ".git"), commonDir: join(r.root, ".git") });
			if (!opened.ok) throw new Error(opened.reason);
			expect(opened.index.commit).toBe(await headOf(r));
			const state = await opened.index.status();
			expect(state?.changes).toEqual([{ path: "a.txt", kind: "modified", staged: false }]);
			// The guess's private folder went with it: only the evidence's own is left.
			expect((await left()).length).toBe(1);
			await opened.index.close();
			expect(await left()).toEqual([]);
		} finally {
			await rm(linked, { recursive: true, force: true });
		}
	});

	test("a discovered repository that is not the one git finds: git's answer decides, and its info/attributes is read", async () => {
		// The checkout's own repository tells git to convert what it reads; the other, discovered by mistake, does not.
		const r = await repo({ "a.txt": "a\n" });
		const other = await repo({ "a.txt": "a\n" });
		await r.write(".git/info/attributes", "*.txt text eol=crlf\n");
		const { opened, left } = await evidence(r, r, { gitDir: join(other.root, ".git"), commonDir: join(other.root, ".git") });
		expect(opened.ok).toBe(false);
		if (opened.ok) await opened.index.close();
		else expect(opened.reason).toContain("info/attributes");
		expect(await left()).toEqual([]);
	});

	test("a refusal on a guess git does not confirm is not the answer: the checkout's commit is still vouched for", async () => {
		// The reader's HEAD (a linked worktree's) names a tree git would never check out (a folder named `.GIT`); the checkout's does not.
		const r = await repo({ "a.txt": "a\n" });
		const empty = (await r.git("mktree")).trim();
		const odd = Bun.spawn(["git", "mktree"], { cwd: r.root, stdin: new Blob([`040000 tree ${empty}\t.GIT\n`]), stdout: "pipe" });
		const oddTree = (await new Response(odd.stdout).text()).trim();
		const commit = (await r.git("commit-tree", oddTree, "-m", "odd")).trim();
		const linked = join(r.root, "..", `${r.root.split("/").at(-1)}-odd`);
		await r.git("worktree", "add", "-q", "--no-checkout", "-b", "odd", linked);
		await r.git("update-ref", "refs/heads/odd", commit);
		try {
			const { opened } = await evidence(r, linked, { gitDir: join(r.root, ".git"), commonDir: join(r.root, ".git") });
			if (!opened.ok) throw new Error(opened.reason);
			expect(opened.index.commit).toBe(await headOf(r));
			await opened.index.close();
		} finally {
			await rm(linked, { recursive: true, force: true });
		}
	});
});
