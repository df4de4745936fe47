import { afterEach, describe, expect, test } from "bun:test";
import { chmod, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type IndexRecord, indexFileBytes } from "../../../src/git/evidence/index-file.ts";
import { makeRepo, runGit, type TestRepo } from "../../helpers/repo.ts";

/** The evidence's private index is written in-process: git must read it exactly as its own index of the same commit. */
const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});

/** `git ls-files -s` of an index file: mode, id, stage and path per entry. */
async function listed(r: TestRepo, indexFile: string | null, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
	const child = Bun.spawn(["git", "ls-files", "-z", ...args], {
		cwd: r.root,
		env: { ...process.env, ...(indexFile ? { GIT_INDEX_FILE: indexFile } : {}) },
		stdout: "pipe",
		stderr: "pipe",
	});
	const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { code, out, err };
}

/** The commit's records as `git ls-tree -r` lists them: the order the evidence's walk yields. */
async function records(r: TestRepo): Promise<IndexRecord[]> {
	const out = await r.git("ls-tree", "-r", "-z", "HEAD");
	return out
		.split("\0")
		.filter((line) => line !== "")
		.map((line) => {
			const [meta = "", path = ""] = line.split("\t");
			const [mode = "", , id = ""] = meta.split(" ");
			return { path, mode, id };
		});
}

async function written(r: TestRepo, list: IndexRecord[]): Promise<string> {
	const idBytes = (await r.git("rev-parse", "HEAD")).trim().length / 2;
	const bytes = indexFileBytes(list, idBytes);
	if (typeof bytes === "string") throw new Error(bytes);
	const path = join(r.root, ".git", "written-index");
	await writeFile(path, bytes);
	return path;
}

describe("indexFileBytes", () => {
	test("git reads it as the index it would write itself: modes, ids, names in byte order", async () => {
		const r = await makeRepo({
			files: {
				"a.b": "dot sorts before slash\n",
				"a/c": "in a folder\n",
				"a-b": "dash\n",
				"src/é/naïve.txt": "two-byte names\n",
				"src/\u{1F600}.txt": "a four-byte name sorts after every three-byte one\n",
				"src/\uFFFD.txt": "three bytes\n",
			},
		});
		made.push(r);
		await writeFile(join(r.root, "run.sh"), "#!/bin/sh\n");
		await chmod(join(r.root, "run.sh"), 0o755);
		await symlink("a.b", join(r.root, "link"));
		await r.commitAll("more kinds");
		const list = await records(r);
		const mine = await listed(r, await written(r, list), "-s");
		const gits = await listed(r, null, "-s");
		expect(mine.code).toBe(0);
		expect(mine.err).toBe("");
		expect(mine.out).toBe(gits.out);
		expect(mine.out).toContain("100755");
		expect(mine.out).toContain("120000");
		// Nothing the commit holds reads as untracked, so nothing git is asked about the files is off by one entry.
		expect((await listed(r, await written(r, list), "--others")).out).toBe("");
	});

	test("records out of byte order are put in order (JavaScript's string order is not git's above U+D7FF)", async () => {
		const r = await makeRepo({ files: { "\uFFFD": "three bytes\n", "\u{1F600}": "four bytes\n", b: "b\n" } });
		made.push(r);
		const list = await records(r);
		const shuffled = [...list].reverse();
		expect((await listed(r, await written(r, shuffled), "-s")).out).toBe((await listed(r, null, "-s")).out);
	});

	test("an empty commit is an empty index git reads; an id that is not hex is refused, never written", async () => {
		const r = await makeRepo();
		made.push(r);
		const empty = await listed(r, await written(r, []), "-s");
		expect(empty).toEqual({ code: 0, out: "", err: "" });
		const [first] = await records(r);
		expect(first).toBeDefined();
		if (!first) return;
		expect(indexFileBytes([{ ...first, id: `${first.id.slice(0, 38)}zz` }], 20)).toContain("is not one of this repository's");
		expect(indexFileBytes([{ ...first, id: first.id.slice(0, 38) }], 20)).toContain("is not one of this repository's");
		expect(indexFileBytes([first], 32)).toContain("is not one of this repository's");
		expect(indexFileBytes([], 19)).toContain("no 19-byte object ids");
	});

	test("a SHA-256 repository's index holds 32-byte ids and trailer, an empty one too", async () => {
		const r = await makeRepo({ commit: false });
		made.push(r);
		await r.git("init", "-q", "--object-format=sha256", "-b", "main", "sha256");
		const inner: TestRepo = { ...r, root: join(r.root, "sha256"), git: (...args: string[]) => runGit(join(r.root, "sha256"), args) };
		await inner.git("config", "user.name", "Test Person");
		await inner.git("config", "user.email", "test@example.com");
		await inner.git("commit", "-q", "--allow-empty", "-m", "empty");
		expect((await listed(inner, await written(inner, []), "-s")).code).toBe(0);
		await writeFile(join(inner.root, "a.txt"), "a\n");
		await inner.git("add", "a.txt");
		await inner.git("commit", "-q", "-m", "a");
		const list = await records(inner);
		expect(list[0]?.id).toHaveLength(64);
		const mine = await listed(inner, await written(inner, list), "-s");
		expect(mine).toEqual({ code: 0, out: (await listed(inner, null, "-s")).out, err: "" });
	});
});
