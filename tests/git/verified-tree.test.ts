import { afterEach, expect, test } from "bun:test";
import { subtreesOf, verifiedTree, type WalkedTree } from "../../src/git/object-check.ts";
import { openObjectReader } from "../../src/git/object-reader.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * A walk that takes an earlier walk's subtrees (issue 23) must list exactly
 * what a walk reading every tree lists: the same records and folders, in
 * the same order, whatever changed between the two commits.
 */

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});

async function walk(r: TestRepo, revision: string, before?: WalkedTree): Promise<WalkedTree> {
	const reader = openObjectReader(r.root);
	try {
		const commit = (await r.git("rev-parse", `${revision}^{commit}`)).trim();
		const walked = await verifiedTree(reader, commit, before ? subtreesOf(before) : undefined);
		if (typeof walked === "string") throw new Error(walked);
		return walked;
	} finally {
		await reader.close();
	}
}

test("a walk taking an earlier walk's subtrees lists what a full walk lists: edits, a new folder, a removed one, a folder moved, one repeated, one taken whole at another place in the list", async () => {
	const r = await makeRepo({
		files: {
			"README.md": "# fixture\n",
			"a/one.txt": "1\n",
			"a/b/two.txt": "2\n",
			"a/b/c/three.txt": "3\n",
			"d/four.txt": "4\n",
			"e/five.txt": "5\n",
			"x/y/seven.txt": "7\n",
			"x/eight.txt": "8\n",
		},
	});
	made.push(r);
	const first = await walk(r, "HEAD");
	expect(first.folders.map(({ path, start, count }) => [path, start, count])).toEqual([
		["a", 1, 3],
		["a/b", 1, 2],
		["a/b/c", 1, 1],
		["d", 4, 1],
		["e", 5, 1],
		["x", 6, 2],
		["x/y", 7, 1],
	]);
	await r.write("a/b/two.txt", "2, edited\n");
	await r.write("new/deep/six.txt", "6\n");
	await r.git("rm", "-q", "-r", "e");
	await r.git("mv", "d", "z");
	// The same tree as a/b/c twice more: one id at three paths.
	await r.write("twice/c/three.txt", "3\n");
	await r.write("a/b2/c/three.txt", "3\n");
	await r.commitAll("many changes");
	const full = await walk(r, "HEAD");
	const taken = await walk(r, "HEAD", first);
	expect(taken).toEqual(full);
	expect(full.records.map((record) => record.path)).toEqual((await r.git("ls-tree", "-r", "--name-only", "HEAD")).trim().split("\n"));
	// And back: the first commit walked from the second's.
	expect(await walk(r, "HEAD~1", full)).toEqual(first);
});
