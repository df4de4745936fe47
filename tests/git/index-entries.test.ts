import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readIndexEntries } from "../../src/git/index-entries.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** The in-process index reader agrees with `git ls-files -s -v` wherever it answers, and answers null for any index it does not vouch for. */
const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((repo) => repo.remove()));
});

async function repo(files: Record<string, string> = { "a.txt": "a\n", "dir/b.txt": "b\n", "dir/deeper/c.txt": "c\n" }): Promise<TestRepo> {
	const made_ = await makeRepo({ files });
	made.push(made_);
	return made_;
}

async function asGitLists(r: TestRepo) {
	return (await r.git("ls-files", "-z", "-s", "-v"))
		.split("\0")
		.filter(Boolean)
		.map((record) => {
			const tab = record.indexOf("\t");
			const [tag = "", mode = "", blob = ""] = record.slice(0, tab).split(" ");
			return { path: record.slice(tab + 1), mode, blob, hidden: tag !== tag.toUpperCase() || tag === "S" };
		});
}

describe("readIndexEntries", () => {
	test("a committed index (with its tree extension): the entries git lists, a long and a non-ASCII name included", async () => {
		const r = await repo({ "a.txt": "a\n", "dir/b.txt": "b\n", [`${"x".repeat(120)}/é ü.txt`]: "u\n", "run.sh": "#!/bin/sh\n" });
		await r.git("update-index", "--chmod=+x", "run.sh");
		await r.git("commit", "-qm", "x");
		const read = readIndexEntries(join(r.root, ".git"));
		expect(read).toEqual(await asGitLists(r));
		expect(read?.some((entry) => entry.mode === "100755")).toBe(true);
	});

	test("an assume-unchanged entry is marked hidden", async () => {
		const r = await repo();
		await r.git("update-index", "--assume-unchanged", "dir/b.txt");
		const read = readIndexEntries(join(r.root, ".git"));
		expect(read?.find((entry) => entry.path === "dir/b.txt")?.hidden).toBe(true);
		expect(read).toEqual(await asGitLists(r));
	});

	test("a SHA-256 repository", async () => {
		const other = await makeRepo({ commit: false });
		made.push(other);
		await other.git("init", "-q", "--object-format=sha256", "sha");
		const sha = join(other.root, "sha");
		await Bun.write(join(sha, "f.txt"), "f\n");
		await other.git("-C", sha, "add", "f.txt");
		const read = readIndexEntries(join(sha, ".git"));
		expect(read?.map((entry) => [entry.path, entry.blob.length])).toEqual([["f.txt", 64]]);
	});

	test("null for what it does not vouch for: skip-worktree (version 3), version 4, a split index, a broken trailer", async () => {
		const skip = await repo();
		await skip.git("update-index", "--skip-worktree", "a.txt");
		expect(readIndexEntries(join(skip.root, ".git"))).toBeNull();
		const four = await repo();
		await four.git("update-index", "--index-version", "4");
		expect(readIndexEntries(join(four.root, ".git"))).toBeNull();
		const split = await repo();
		await split.git("update-index", "--split-index");
		expect(readIndexEntries(join(split.root, ".git"))).toBeNull();
		const broken = await repo();
		const index = join(broken.root, ".git", "index");
		const bytes = new Uint8Array(await Bun.file(index).arrayBuffer());
		bytes[20] = (bytes[20] ?? 0) ^ 1;
		await Bun.write(index, bytes);
		expect(readIndexEntries(join(broken.root, ".git"))).toBeNull();
	});
});
