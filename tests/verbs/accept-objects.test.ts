import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { type Journal, writeJournal } from "../../src/verbs/accept/journal.ts";
import type { AcceptData } from "../../src/verbs/accept/schema.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeTempDir, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/*
 * The landing writes what the object store holds under the proven blobs' ids
 * into the checkout on the trunk: bytes a job (or anyone) rewrote there after
 * `done` must never reach the person's checkout, nor the trunk.
 */

const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

const CONFIG = `[jobs]
lint = "true"

[scopes.docs]
paths = ["docs/**"]

[acceptance]
pre_authorized = ["docs"]
`;

const data = (result: { data?: unknown }) => result.data as AcceptData;

/** A proven, pre-authorized change to docs/a.md, and the id of the blob it lands. */
async function proven(files: Record<string, string> = {}, text = "the proven text\n"): Promise<{ repo: WorktreeRepo; blob: string }> {
	const repo = await makeWorktreeRepo({ config: CONFIG, files: { "README.md": "# fixture\n", ...files } });
	made.push(...repo.cleanupDirs);
	await repo.wtWrite("docs/a.md", text);
	await repo.wtCommit("docs");
	const judged = await invokeVerb("done", testContext(repo.wt));
	expect(judged.ok).toBe(true);
	return { repo, blob: (await repo.wtGit("rev-parse", "HEAD:docs/a.md")).trim() };
}

/** A loose object file holding `content` as a blob, zlib-compressed as git writes one. */
async function writeLooseBlob(objects: string, id: string, content: string): Promise<void> {
	const path = join(objects, id.slice(0, 2), id.slice(2));
	await mkdir(join(objects, id.slice(0, 2)), { recursive: true });
	if (existsSync(path)) await chmod(path, 0o644);
	await writeFile(path, deflateSync(Buffer.concat([Buffer.from(`blob ${Buffer.byteLength(content)}\0`), Buffer.from(content)])));
}

/** The journal accept writes just before the trunk moves from `old` to `head` through the main checkout. */
function landingJournal(repo: WorktreeRepo, head: string, old: string): Journal {
	const proof = {
		version: 2,
		head,
		tree: "t",
		branch: repo.branch,
		config_digest: "d",
		judgement: { trunk: { name: "main", sha: old }, scopes_changed: [], all_scopes_because: null, never_loosen: "checked", gate_changes: [] },
		jobs: [],
		standards: [],
		time: "now",
		duration_s: 0,
		line: "Proof: agent/x",
	};
	return {
		version: 1,
		state: "landing",
		branch: repo.branch,
		id: null,
		path: repo.wt,
		trunk: "main",
		sha: head,
		previous_trunk_sha: old,
		proof_line: "Proof: agent/x",
		proof,
		checkout: repo.root,
		consent: "pre_authorized",
		done: [],
		destroyed: [],
		time: "now",
	} as Journal;
}

/** Every ref and the main checkout's status: what a refusal leaves as it was. */
async function snapshot(repo: WorktreeRepo): Promise<string> {
	const refs = await repo.git("for-each-ref", "--format=%(refname) %(objectname)");
	const status = await repo.git("status", "--porcelain=v2", "--untracked-files=all");
	return `${refs}\n${status}`;
}

describe("accept: the object store's bytes", () => {
	test("a loose blob rewritten after done: nothing lands, the main checkout is unchanged, the object is named", async () => {
		const { repo, blob } = await proven();
		await writeLooseBlob(join(repo.root, ".git", "objects"), blob, "EVIL\n");
		const before = await snapshot(repo);
		const main = await repo.sha("main");
		const result = await invokeVerb("accept", testContext(repo.wt));
		expectValidEnvelope("accept", result);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("gate_failed");
		expect(result.message).toContain(blob.slice(0, 12));
		expect(result.message).toContain("docs/a.md");
		expect(result.message).toContain("Nothing landed");
		expect(result.hints?.join(" ")).toContain("git fsck");
		expect(data(result).landed).toBe(false);
		expect(await repo.sha("main")).toBe(main);
		expect(existsSync(join(repo.root, "docs", "a.md"))).toBe(false);
		expect(await snapshot(repo)).toBe(before);
		expect(existsSync(repo.wt)).toBe(true);
	});

	test("confirmed by the owner, and from the main checkout: still refused", async () => {
		const { repo, blob } = await proven();
		await writeLooseBlob(join(repo.root, ".git", "objects"), blob, "EVIL\n");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.root), { target: repo.branch, confirmed: true });
		expectValidEnvelope("accept", result);
		expect(result.ok ? "" : result.error).toBe("gate_failed");
		expect(existsSync(join(repo.root, "docs", "a.md"))).toBe(false);
		expect(await snapshot(repo)).toBe(before);
	});

	test("with no checkout on the trunk (the ref alone moves): refused all the same, for every later checkout", async () => {
		const { repo, blob } = await proven();
		await repo.git("switch", "-q", "--detach");
		await writeLooseBlob(join(repo.root, ".git", "objects"), blob, "EVIL\n");
		const main = await repo.sha("main");
		// Confirmed: with the main checkout detached, no checkout names the trunk, so its pre-authorized scopes grant nothing.
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expectValidEnvelope("accept", result);
		expect(result.ok ? "" : result.error).toBe("gate_failed");
		expect(await repo.sha("main")).toBe(main);
	});

	test("the dry run says accept would refuse", async () => {
		const { repo, blob } = await proven();
		await writeLooseBlob(join(repo.root, ".git", "objects"), blob, "EVIL\n");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		expectValidEnvelope("accept", result);
		expect(result.ok ? "" : result.error).toBe("gate_failed");
		expect(result.message).toContain(blob.slice(0, 12));
		expect(await snapshot(repo)).toBe(before);
	});

	test("an alternates file pointing at another store that holds other bytes under the id: refused", async () => {
		const { repo, blob } = await proven();
		const elsewhere = await makeTempDir("discern-alt-");
		made.push(elsewhere);
		await writeLooseBlob(elsewhere, blob, "EVIL\n");
		// The real object is gone from the repository's own store: git finds it through the alternate.
		await rm(join(repo.root, ".git", "objects", blob.slice(0, 2), blob.slice(2)), { force: true });
		await mkdir(join(repo.root, ".git", "objects", "info"), { recursive: true });
		await writeFile(join(repo.root, ".git", "objects", "info", "alternates"), `${elsewhere}\n`);
		expect(await repo.git("cat-file", "blob", blob)).toBe("EVIL\n");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt));
		expectValidEnvelope("accept", result);
		expect(result.ok ? "" : result.error).toBe("gate_failed");
		expect(existsSync(join(repo.root, "docs", "a.md"))).toBe(false);
		expect(await snapshot(repo)).toBe(before);
	});

	test("a landing resumed after the trunk moved, its checkout's files moved from a rewritten store: reported, not finished", async () => {
		const { repo, blob } = await proven();
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const old = await repo.sha("main");
		// As if discern died just after the compare-and-swap, before the checkout's files moved; the store rewritten since.
		await repo.git("update-ref", "refs/heads/main", head, old);
		await writeJournal(join(repo.root, ".git"), landingJournal(repo, head, old));
		await writeLooseBlob(join(repo.root, ".git", "objects"), blob, "EVIL\n");
		const result = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expectValidEnvelope("accept", result);
		expect(result.ok ? "" : result.error).toBe("partial_acceptance");
		expect(data(result).landed).toBe(true);
		expect(result.message).toContain(blob.slice(0, 12));
		expect(result.message).toContain("git fsck");
		expect(data(result).worktree_removed).toBe(false);
		expect(existsSync(repo.wt)).toBe(true);
	});

	test("a checkout that converts line endings on the way out lands clean", async () => {
		const { repo } = await proven({ ".gitattributes": "*.md text eol=crlf\n" }, "the proven text\r\n");
		const result = await invokeVerb("accept", testContext(repo.wt));
		expectValidEnvelope("accept", result);
		expect(result.ok).toBe(true);
		expect(readFileSync(join(repo.root, "docs", "a.md"), "utf8")).toBe("the proven text\r\n");
	});

	test("an intact store lands as before, the written files checked", async () => {
		const { repo } = await proven();
		const result = await invokeVerb("accept", testContext(repo.wt));
		expectValidEnvelope("accept", result);
		expect(result.ok).toBe(true);
		expect(readFileSync(join(repo.root, "docs", "a.md"), "utf8")).toBe("the proven text\n");
	});
});
