import { afterEach, describe, expect, test } from "bun:test";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { rawHasher } from "../../src/git/evidence/raw-hasher.ts";
import { git } from "../../src/git/run.ts";
import { done } from "../../src/proof/done.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * A look with many files to read hashes their raw bytes with git's
 * hash-object on every core (raw-hasher.ts). The batch must judge exactly
 * as reading them one by one does: a same-size edit among hundreds of
 * files, a path git's one-a-line list cannot carry, a file that went away.
 */

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});

/** More files than the batch starts from (file-check.ts BATCH_FROM). */
function manyFiles(count: number): Record<string, string> {
	const files: Record<string, string> = {};
	for (let n = 0; n < count; n++) files[`data/f${n}.txt`] = `file ${n}\n`;
	return files;
}

async function runDone(r: TestRepo): Promise<{ ok: boolean; error?: string; message: string }> {
	const result: AnyResult = await done(r.ctx({ env: { PATH: process.env.PATH } }), {});
	expectValidEnvelope("done", result);
	return result as { ok: boolean; error?: string; message: string };
}

describe("hashing many files at once", () => {
	test("a same-size edit among 400 files is found; the unedited tree passes", async () => {
		const r = await makeRepo({ config: '[jobs]\ntest = "true"\n', files: manyFiles(400) });
		made.push(r);
		await writeFile(join(r.root, "data/f217.txt"), "FILE 217\n");
		const dirty = await runDone(r);
		expect(dirty.ok).toBe(false);
		expect(dirty.error).toBe("dirty_worktree");
		expect(dirty.message).toContain("data/f217.txt");
		await r.git("checkout", "--", "data/f217.txt");
		expect((await runDone(r)).ok).toBe(true);
	});

	test("a path holding a line break is read here and judged like the rest", async () => {
		const r = await makeRepo({ config: '[jobs]\ntest = "true"\n', files: { ...manyFiles(300), "data/two\nlines.txt": "one\n" } });
		made.push(r);
		expect((await runDone(r)).ok).toBe(true);
		await writeFile(join(r.root, "data/two\nlines.txt"), "two\n");
		const dirty = await runDone(r);
		expect(dirty.ok).toBe(false);
		expect(dirty.error).toBe("dirty_worktree");
	});

	test("the ids are git's own; a file gone from a share makes that share read here, the gone file no id", async () => {
		const r = await makeRepo({ files: manyFiles(40) });
		made.push(r);
		const run = (args: readonly string[], options: { input?: string; viaFiles?: boolean }) => git(args, r.root, options);
		const paths = Object.keys(manyFiles(40));
		const ids = await rawHasher(r.root, 40, run)(paths);
		for (const path of ["data/f0.txt", "data/f39.txt"]) expect(ids?.get(path)).toBe((await r.git("rev-parse", `HEAD:${path}`)).trim());
		await rm(join(r.root, "data/f3.txt"));
		const after = await rawHasher(r.root, 40, run)(paths);
		expect(after?.get("data/f3.txt")).toBeUndefined();
		expect(after?.get("data/f4.txt")).toBe((await r.git("rev-parse", "HEAD:data/f4.txt")).trim());
		expect(after?.size).toBe(39);
	});
});
