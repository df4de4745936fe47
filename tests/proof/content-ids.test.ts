import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFile, lstat, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { decodeKnown, type KnownContent, statKey, unstampedHorizon } from "../../src/git/evidence/known-content.ts";
import { keepContent, recallContent } from "../../src/proof/content-ids.ts";
import { done } from "../../src/proof/done.ts";
import { makeRepo, runGit, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/**
 * The facts kept between runs (issue 23): a file whose stat is the one
 * recorded is not read again. Each case checks that a fact can only ever
 * save a read, never make a changed file look unchanged: a fact is used
 * only when sealed, this checkout's own, made under the same attributes,
 * and settled (the file's times well before its read).
 *
 * A fact is kept only for files whose times are older than the read by
 * the time bytes can change unstamped (known-content.ts: 45 s with Linux's
 * default writeback settings), and ctime cannot be set back: the
 * repositories are made first, then the suite waits once for them to settle.
 */

const CONFIG = '[jobs]\ntest = "true"\n';
const FILES = { "README.md": "# fixture\n", "src/a.txt": "alpha\n", "src/b.txt": "bravo\n" };

type Loose = { ok: boolean; error?: string; message: string; data?: { proof: { head: string } | null } };

async function runDone(root: string, r: TestRepo): Promise<Loose> {
	const result: AnyResult = await done(r.ctx({ cwd: root, env: { PATH: process.env.PATH } }), {});
	expectValidEnvelope("done", result);
	return result as Loose;
}

/** done refuses the tree, naming `path` among its changes. */
async function expectDirtyAt(r: TestRepo, path: string): Promise<void> {
	const result = await runDone(r.root, r);
	expect(result.ok).toBe(false);
	expect(result.error).toBe("dirty_worktree");
	expect(result.message).toContain(path);
}

async function gitDirOf(root: string): Promise<string> {
	return (await runGit(root, ["rev-parse", "--path-format=absolute", "--git-dir"])).trim();
}

/** The facts kept for `root`'s checkout, read back raw (no seal check), or null. */
async function keptFacts(root: string): Promise<KnownContent["files"] | null> {
	const text = await readFile(join(await gitDirOf(root), "discern", "content-ids"), "utf8").catch(() => null);
	if (text === null) return null;
	return decodeKnown(text.slice(text.indexOf("\n") + 1))?.files ?? null;
}

/** The blob id of some other content, claimed for a file that holds something else. */
const WRONG_BLOB = "0123456789abcdef0123456789abcdef01234567";

/** Rewrite the checkout's kept fact about `path` to claim other bytes, sealed with the real key: a lie only the seal's owner could tell. */
async function plantLyingFact(root: string, path: string): Promise<void> {
	const gitDir = await gitDirOf(root);
	const known = await recallContent(gitDir, root);
	const fact = known?.files.get(path);
	if (!known || !fact) throw new Error("no facts kept");
	known.files.set(path, { ...fact, blob: WRONG_BLOB });
	await keepContent(gitDir, root, known);
}

const repos: Record<string, TestRepo> = {};
let linked: WorktreeRepo;

beforeAll(async () => {
	for (const name of ["kept", "sealed", "forged", "racy", "attributes", "restored", "mode", "link", "mapped"])
		repos[name] = await makeRepo({ config: CONFIG, files: FILES });
	linked = await makeWorktreeRepo({ config: CONFIG, files: FILES });
	const horizon = unstampedHorizon(linked.root);
	if (horizon === null)
		throw new Error(
			"the temp folder is on a file system where no fact is ever kept (tmpfs, an overlay, FUSE, a network file system; or not Linux): run these tests with TMPDIR on a local disk",
		);
	await Bun.sleep(Number(horizon.ns / 1_000_000n) + 500);
}, 180_000);

afterAll(async () => {
	for (const r of Object.values(repos)) await r.remove();
	await linked.remove();
});

describe("facts about a checkout's files, kept between runs", () => {
	test("a green done keeps a sealed fact for every settled file, each the committed blob at the file's full stat", async () => {
		const r = repos.kept as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		const facts = await keptFacts(r.root);
		const blob = (await r.git("rev-parse", "HEAD:src/a.txt")).trim();
		const found = await lstat(join(r.root, "src/a.txt"), { bigint: true });
		expect(facts?.get("src/a.txt")).toEqual({ stat: statKey(found), blob });
		expect([...(facts?.keys() ?? [])].sort()).toEqual(["README.md", "discern.toml", "src/a.txt", "src/b.txt"]);
		// The seal holds: the facts read back through the sealed reader.
		expect((await recallContent(await gitDirOf(r.root), r.root))?.files.size).toBe(4);
	});

	test("a sealed fact is used: a file it says holds other bytes is taken as changed without being read", async () => {
		// This is what makes a look at an unchanged tree cheap; it is shown here with a fact that lies, sealed with the real key.
		const r = repos.sealed as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		await plantLyingFact(r.root, "src/a.txt");
		await expectDirtyAt(r, "src/a.txt");
	});

	test("a fact file written by hand (no valid seal) is not believed: an edit it claims away is found", async () => {
		const r = repos.forged as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		const gitDir = await gitDirOf(r.root);
		const path = join(gitDir, "discern", "content-ids");
		const text = await readFile(path, "utf8");
		// A same-size edit; the forged fact names the edited file's new stat with the committed blob.
		await writeFile(join(r.root, "src/a.txt"), "ALPHA\n");
		const edited = statKey(await lstat(join(r.root, "src/a.txt"), { bigint: true }));
		expect(decodeKnown(text.slice(text.indexOf("\n") + 1))?.files.get("src/a.txt")).toBeDefined();
		// The record is `mode NUL id NUL path NUL stat NUL blob NUL`: the stat swapped, the blob still the record's own.
		const body = text.slice(text.indexOf("\n") + 1).replace(/(100644\0[0-9a-f]{40}\0src\/a\.txt\0)[^\0]*\0/, `$1${edited}\0`);
		expect(body).toContain(edited);
		await writeFile(path, `${text.slice(0, text.indexOf("\n"))}\n${body}`);
		await expectDirtyAt(r, "src/a.txt");
	});

	test("a file written just before the look is read, and no fact is kept for it until it has settled", async () => {
		const r = repos.racy as TestRepo;
		await r.write("src/b.txt", "bravo, again\n");
		await r.commitAll("racy edit");
		expect((await runDone(r.root, r)).ok).toBe(true);
		const facts = await keptFacts(r.root);
		expect(facts?.has("src/a.txt")).toBe(true);
		// Written within the write-back horizon: its stat could still hide a write through a memory map, or in the same clock tick.
		expect(facts?.has("src/b.txt")).toBe(false);
	});

	test("facts made under other attributes are not used: a change to .gitattributes has every file read again", async () => {
		const r = repos.attributes as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		// A sealed fact that lies, made under the commit's attributes as they were...
		await plantLyingFact(r.root, "src/a.txt");
		// ...and a commit that adds attributes (converting none of these files): the lie is never consulted.
		await r.write(".gitattributes", "*.bin binary\n");
		await r.commitAll("attributes");
		expect((await runDone(r.root, r)).ok).toBe(true);
	});

	test("a same-size edit with its mtime put back after a fact was kept is found (ctime moved)", async () => {
		const r = repos.restored as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		expect((await keptFacts(r.root))?.has("src/a.txt")).toBe(true);
		const before = await lstat(join(r.root, "src/a.txt"));
		await writeFile(join(r.root, "src/a.txt"), "ALPHA\n");
		await utimes(join(r.root, "src/a.txt"), before.atime, before.mtime);
		await expectDirtyAt(r, "src/a.txt");
	});

	test("a commit that only makes a file executable is not matched by the fact about its bytes", async () => {
		// The file stays as it was (mode 0644, same bytes, same stat); the commit records it as 100755.
		const r = repos.mode as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		expect((await keptFacts(r.root))?.has("src/a.txt")).toBe(true);
		await r.git("update-index", "--chmod=+x", "src/a.txt");
		await r.git("commit", "-q", "-m", "executable");
		await expectDirtyAt(r, "src/a.txt");
	});

	test("a fact about a regular file never stands for a symbolic link the commit records with the same blob", async () => {
		// The commit turns src/a.txt into a link whose target text is the file's bytes; the file on disk stays as it was.
		const r = repos.link as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		expect((await keptFacts(r.root))?.has("src/a.txt")).toBe(true);
		const blob = (await r.git("rev-parse", "HEAD:src/a.txt")).trim();
		await r.git("update-index", "--cacheinfo", `120000,${blob},src/a.txt`);
		await r.git("commit", "-q", "-m", "a link now");
		await expectDirtyAt(r, "src/a.txt");
	});

	test("bytes written through a memory map, which change no stat until written back, are read again and found", async () => {
		const r = repos.mapped as TestRepo;
		expect((await runDone(r.root, r)).ok).toBe(true);
		// The first write through the map dirties a clean page and stamps the file; later ones, until write-back, do not.
		const map = Bun.mmap(join(r.root, "src/a.txt"));
		map.set(new TextEncoder().encode("ALPHA\n"));
		map.set(new TextEncoder().encode("alpha\n"));
		// Long past any clock tick, well within the write-back delay: the page is still dirty.
		await Bun.sleep(3500);
		expect((await runDone(r.root, r)).ok).toBe(true);
		// Too fresh to vouch for its bytes: no fact is kept for it.
		expect((await keptFacts(r.root))?.has("src/a.txt")).toBe(false);
		const stamped = statKey(await lstat(join(r.root, "src/a.txt"), { bigint: true }));
		map.set(new TextEncoder().encode("OMEGA\n"));
		expect(statKey(await lstat(join(r.root, "src/a.txt"), { bigint: true }))).toBe(stamped);
		await expectDirtyAt(r, "src/a.txt");
	});

	test("another checkout's facts are not used, even sealed with the repository's key", async () => {
		// The main checkout's facts, copied into the linked worktree's git dir: same key, another checkout.
		expect((await runDone(linked.root, linked)).ok).toBe(true);
		const mainDir = await gitDirOf(linked.root);
		await plantLyingFact(linked.root, "src/a.txt");
		const worktreeDir = await gitDirOf(linked.wt);
		await runGit(linked.wt, ["status"]);
		await Bun.$`mkdir -p ${join(worktreeDir, "discern")}`.quiet();
		await copyFile(join(mainDir, "discern", "content-ids"), join(worktreeDir, "discern", "content-ids"));
		expect(await recallContent(worktreeDir, linked.wt)).toBeNull();
		expect((await runDone(linked.wt, linked)).ok).toBe(true);
	});
});
