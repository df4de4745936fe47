import { afterEach, describe, expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { keepContent, recallContent } from "../../src/proof/content-ids.ts";
import { done } from "../../src/proof/done.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * What a look keeps between runs besides the files' facts (issue 23): the
 * commit's tree as walked from hashed objects, and the digest of the
 * checkout's index as last found holding exactly that tree. Each is used
 * only for the very tree and the very bytes it was made from, and only
 * sealed: these cases show each is used, and that anything else is read
 * afresh. Neither waits for files to settle (content-ids.test.ts).
 */

const CONFIG = '[jobs]\ntest = "true"\n';
const FILES = { "README.md": "# fixture\n", "src/a.txt": "alpha\n", "src/b.txt": "bravo\n" };

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});

async function repo(): Promise<TestRepo> {
	const r = await makeRepo({ config: CONFIG, files: FILES });
	made.push(r);
	return r;
}

type Loose = { ok: boolean; error?: string; message: string };

async function runDone(r: TestRepo): Promise<Loose> {
	const result: AnyResult = await done(r.ctx({ env: { PATH: process.env.PATH } }), {});
	expectValidEnvelope("done", result);
	return result as Loose;
}

const gitDir = (r: TestRepo) => join(r.root, ".git");

/** The sha256 of the checkout's index as it is now. */
async function indexDigest(r: TestRepo): Promise<string> {
	return new Bun.CryptoHasher("sha256").update(await readFile(join(gitDir(r), "index"))).digest("hex");
}

describe("the commit's tree, kept as walked", () => {
	test("a green done keeps the tree it walked: its id and every record, sealed", async () => {
		const r = await repo();
		expect((await runDone(r)).ok).toBe(true);
		const kept = await recallContent(gitDir(r), r.root);
		expect(kept?.tree.id).toBe((await r.git("rev-parse", "HEAD^{tree}")).trim());
		const listed = (await r.git("ls-tree", "-r", "HEAD")).trim().split("\n");
		expect(kept?.tree.records.map((record) => `${record.mode} blob ${record.id}\t${record.path}`)).toEqual(listed);
	});

	test("the kept records are used for the very tree: a record that lies (sealed with the real key) is believed, and the file it names is a change", async () => {
		const r = await repo();
		expect((await runDone(r)).ok).toBe(true);
		const kept = await recallContent(gitDir(r), r.root);
		if (!kept) throw new Error("nothing kept");
		const lying = kept.tree.records.map((record) => (record.path === "src/a.txt" ? { ...record, id: "0123456789abcdef0123456789abcdef01234567" } : record));
		await keepContent(gitDir(r), r.root, { ...kept, tree: { ...kept.tree, records: lying } });
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("src/a.txt");
	});

	test("another commit's tree is walked afresh: the records kept for the last one are not used", async () => {
		const r = await repo();
		expect((await runDone(r)).ok).toBe(true);
		const kept = await recallContent(gitDir(r), r.root);
		if (!kept) throw new Error("nothing kept");
		const lying = kept.tree.records.map((record) => (record.path === "src/a.txt" ? { ...record, id: "0123456789abcdef0123456789abcdef01234567" } : record));
		await keepContent(gitDir(r), r.root, { ...kept, tree: { ...kept.tree, records: lying } });
		await r.write("src/b.txt", "bravo, again\n");
		await r.commitAll("another tree");
		expect((await runDone(r)).ok).toBe(true);
		expect((await recallContent(gitDir(r), r.root))?.tree.id).toBe((await r.git("rev-parse", "HEAD^{tree}")).trim());
	});

	test("another commit's tree takes the kept records of each folder whose tree it still holds: only the trees on the way to a change are read", async () => {
		const r = await repo();
		await r.write("lib/deep/c.txt", "charlie\n");
		await r.commitAll("a second folder");
		expect((await runDone(r)).ok).toBe(true);
		const kept = await recallContent(gitDir(r), r.root);
		if (!kept) throw new Error("nothing kept");
		expect(kept.tree.folders.map((folder) => folder.path)).toEqual(["lib", "lib/deep", "src"]);
		// A lie in lib/ (unchanged by the next commit) is taken with its folder's records; one in src/ (changed) is read past.
		const lie = "0123456789abcdef0123456789abcdef01234567";
		const lying = kept.tree.records.map((record) => (record.path === "lib/deep/c.txt" || record.path === "src/a.txt" ? { ...record, id: lie } : record));
		await keepContent(gitDir(r), r.root, { ...kept, tree: { ...kept.tree, records: lying } });
		await r.write("src/b.txt", "bravo, again\n");
		await r.commitAll("a change in src");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("lib/deep/c.txt");
		expect(result.message).not.toContain("src/a.txt");
	});
});

describe("the checkout's index, remembered by digest", () => {
	test("a green done remembers the index it found holding exactly the tree", async () => {
		const r = await repo();
		expect((await runDone(r)).ok).toBe(true);
		expect((await recallContent(gitDir(r), r.root))?.index).toBe(await indexDigest(r));
	});

	test("the remembered digest is used: an index that lies about it (sealed with the real key) is believed", async () => {
		// Shown with the digest of a staged deletion remembered as clean: only the seal's owner could write that.
		const r = await repo();
		expect((await runDone(r)).ok).toBe(true);
		const kept = await recallContent(gitDir(r), r.root);
		if (!kept) throw new Error("nothing kept");
		await r.git("rm", "-q", "--cached", "src/a.txt");
		await keepContent(gitDir(r), r.root, { ...kept, index: await indexDigest(r) });
		expect((await runDone(r)).ok).toBe(true);
	});

	test("an index changed since it was remembered is listed again: a staged deletion is a change", async () => {
		const r = await repo();
		expect((await runDone(r)).ok).toBe(true);
		await r.git("rm", "-q", "--cached", "src/a.txt");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("src/a.txt");
		await r.git("reset", "-q");
		expect((await runDone(r)).ok).toBe(true);
	});

	test("a split index is never remembered: its shared file rewritten after a green done is read at the next", async () => {
		const r = await repo();
		await r.write("src/c.txt", "charlie\n");
		await r.commitAll("add src/c.txt");
		await r.git("update-index", "--split-index");
		expect((await runDone(r)).ok).toBe(true);
		expect((await recallContent(gitDir(r), r.root))?.index).toBeNull();
		// The shared file made to hold the entries without src/c.txt, ending in its own last 20 bytes: the index's own bytes untouched.
		const shared = (await readdir(gitDir(r))).filter((name) => name.startsWith("sharedindex."));
		expect(shared.length).toBe(1);
		const sharedPath = join(gitDir(r), shared[0] ?? "");
		const forged = join(gitDir(r), "forged-index");
		await r.git("read-tree", `--index-output=${forged}`, "HEAD~1");
		const original = await readFile(sharedPath);
		const entries = await readFile(forged);
		const before = await indexDigest(r);
		await Bun.write(sharedPath, Buffer.concat([entries.subarray(0, entries.length - 20), original.subarray(original.length - 20)]));
		expect(await indexDigest(r)).toBe(before);
		expect((await runDone(r)).ok).toBe(false);
	});
});
