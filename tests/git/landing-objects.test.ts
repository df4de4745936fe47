import { afterAll, describe, expect, test } from "bun:test";
import { rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { filesNotAsWritten, verifiedLandingBlobs } from "../../src/git/landing-objects.ts";
import { openObjectReader } from "../../src/git/object-reader.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/*
 * After the trunk moved, the files git wrote into the checkout on it are
 * read back against the blobs that landed: a store that gave git other
 * bytes between the check and the write shows here, and nowhere else.
 */

const made: TestRepo[] = [];
afterAll(async () => {
	await Promise.all(made.map((repo) => repo.remove()));
});

async function landed(): Promise<{ repo: TestRepo; files: Awaited<ReturnType<typeof blobsOf>> }> {
	const repo = await makeRepo({ files: { "README.md": "# r\n" } });
	made.push(repo);
	const from = (await repo.git("rev-parse", "HEAD")).trim();
	await repo.write("docs/a.md", "proven\n");
	await repo.write("tool.sh", "#!/bin/sh\n");
	await symlink("docs/a.md", join(repo.root, "link"));
	await repo.git("update-index", "--add", "--chmod=+x", "tool.sh");
	await repo.commitAll("land");
	const to = (await repo.git("rev-parse", "HEAD")).trim();
	return { repo, files: await blobsOf(repo.root, from, to) };
}

async function blobsOf(root: string, from: string, to: string) {
	const reader = openObjectReader(root);
	try {
		const told = await verifiedLandingBlobs(reader, from, to);
		if (!told.ok) throw new Error(told.problem);
		return told.files;
	} finally {
		await reader.close();
	}
}

describe("filesNotAsWritten", () => {
	test("files, an executable and a link as the commit records them: none reported", async () => {
		const { repo, files } = await landed();
		expect(files.map((file) => file.path)).toEqual(["docs/a.md", "link", "tool.sh"]);
		expect(await filesNotAsWritten(repo.root, files)).toEqual([]);
	});

	test("a file holding other bytes, a missing one and a link to elsewhere: each named", async () => {
		const { repo, files } = await landed();
		await writeFile(join(repo.root, "docs", "a.md"), "EVIL\n");
		await rm(join(repo.root, "tool.sh"));
		await rm(join(repo.root, "link"));
		await symlink("README.md", join(repo.root, "link"));
		expect(await filesNotAsWritten(repo.root, files)).toEqual(["docs/a.md", "link", "tool.sh"]);
	});
});
