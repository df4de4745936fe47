import { afterEach, expect, test } from "bun:test";
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { blobId } from "../../../src/git/blob-id.ts";
import type { Entry } from "../../../src/git/evidence/expected-content.ts";
import { fingerprint, verify } from "../../../src/git/evidence/file-check.ts";
import { deviceOfKey, statKey } from "../../../src/git/evidence/stat-key.ts";
import { makeTempDir } from "../../helpers/repo.ts";

/**
 * The look reads the bytes of the very file it stat'ed (file-check.ts):
 * a file, or a folder on its way, swapped between the stat and the read is
 * "modified", even when what now sits at the path holds the committed bytes.
 * Without that, a process swapping folders as the look reads could feed it
 * the committed bytes while the jobs run on others, and a fact kept between
 * runs would pair one file's stat with another's bytes.
 */

const dirs: string[] = [];
afterEach(async () => {
	for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const COMMITTED = "committed\n";

function entry(path: string): Entry {
	return { path, mode: "100644", type: "blob", blob: blobId(new TextEncoder().encode(COMMITTED), 40), check: "raw" };
}

const noCheckout = async () => "no converted files here";

test("a folder swapped for a copy of the committed bytes after the stat is read as modified", async () => {
	const root = await makeTempDir();
	dirs.push(root);
	await mkdir(join(root, "zz"));
	await writeFile(join(root, "zz/f.txt"), COMMITTED);
	const files = [entry("zz/f.txt")];
	const stats = await fingerprint(root, files);
	// Unchanged: the committed bytes, in the file stat'ed.
	expect((await verify(root, files, new Map(), noCheckout, root, stats))?.size).toBe(0);
	// The folder swapped for a copy: same name, same bytes, another file.
	await mkdir(join(root, "copy"));
	await writeFile(join(root, "copy/f.txt"), COMMITTED);
	await rename(join(root, "zz"), join(root, "real"));
	await rename(join(root, "copy"), join(root, "zz"));
	expect((await verify(root, files, new Map(), noCheckout, root, stats))?.get("zz/f.txt")).toBe("modified");
});

test("a file the look has no stat for is a change, never read as matching", async () => {
	const root = await makeTempDir();
	dirs.push(root);
	await writeFile(join(root, "f.txt"), COMMITTED);
	expect((await verify(root, [entry("f.txt")], new Map(), noCheckout, root, new Map()))?.has("f.txt")).toBe(true);
	// A stat that is not the file's (another file's, taken before a swap): the read refuses it.
	expect(
		(
			await verify(
				root,
				[entry("f.txt")],
				new Map(),
				noCheckout,
				root,
				new Map([["f.txt", statKey({ size: 10n, mtimeNs: 1n, ctimeNs: 1n, ino: 1n, dev: 1n, mode: 0o100644n })]]),
			)
		)?.get("f.txt"),
	).toBe("modified");
});

test("a converted file is compared with the bytes its tied read found, never read again by path", async () => {
	// The checkout holds other bytes; right after the tied read (when git writes the expected file), a folder holding
	// the expected bytes is swapped in: read again by path, it would pass.
	const root = await makeTempDir();
	dirs.push(root);
	await mkdir(join(root, "zz"));
	await writeFile(join(root, "zz/f.txt"), "PASS\r\n");
	const converted: Entry = { path: "zz/f.txt", mode: "100644", type: "blob", blob: blobId(new TextEncoder().encode("FAIL\n"), 40), check: "converted" };
	const stats = await fingerprint(root, [converted]);
	const swappingCheckout = async (_files: readonly Entry[], folder: string) => {
		await mkdir(join(folder, "zz"), { recursive: true });
		await writeFile(join(folder, "zz/f.txt"), "FAIL\r\n");
		await mkdir(join(root, "decoy"));
		await writeFile(join(root, "decoy/f.txt"), "FAIL\r\n");
		await rename(join(root, "zz"), join(root, "real"));
		await rename(join(root, "decoy"), join(root, "zz"));
		return { exitCode: 0, stdout: "", stderr: "" };
	};
	expect((await verify(root, [converted], new Map(), swappingCheckout, join(root, ".scratch"), stats))?.get("zz/f.txt")).toBe("modified");
});

test("a stat on another device than the checkout's never vouches for bytes (a file system mounted inside the tree)", async () => {
	const { isSettled } = await import("../../../src/git/evidence/known-content.ts");
	const old = 1_000_000_000n;
	const onDevice = (dev: bigint) => statKey({ size: 6n, mtimeNs: old, ctimeNs: old, ino: 12n, dev, mode: 0o100644n });
	const horizon = { ns: 45_000_000_000n, device: deviceOfKey(onDevice(2049n)) };
	const now = 100_000_000_000_000n;
	expect(isSettled(onDevice(2049n), now, horizon)).toBe(true);
	expect(isSettled(onDevice(77n), now, horizon)).toBe(false);
	expect(isSettled(onDevice(2049n), now, null)).toBe(false);
});

test("many files are read in worker threads with the same tie: a swapped folder among 200 files is modified, the rest clean", async () => {
	const root = await makeTempDir();
	dirs.push(root);
	const files: Entry[] = [];
	for (let n = 0; n < 200; n++) {
		const folder = `d${n % 10}`;
		await mkdir(join(root, folder), { recursive: true });
		await writeFile(join(root, folder, `f${n}.txt`), COMMITTED);
		files.push(entry(`${folder}/f${n}.txt`));
	}
	const stats = await fingerprint(root, files);
	expect((await verify(root, files, new Map(), noCheckout, root, stats))?.size).toBe(0);
	// d3 swapped for a copy: same names, same bytes, other files.
	await rename(join(root, "d3"), join(root, "d3-real"));
	await mkdir(join(root, "d3"));
	for (const file of files.filter((item) => item.path.startsWith("d3/"))) await writeFile(join(root, file.path), COMMITTED);
	const found = await verify(root, files, new Map(), noCheckout, root, stats);
	expect([...(found?.keys() ?? [])].sort()).toEqual(
		files
			.filter((item) => item.path.startsWith("d3/"))
			.map((item) => item.path)
			.sort(),
	);
	expect(new Set(found?.values())).toEqual(new Set(["modified"]));
});

test("a link's target is read tied too: a folder swapped for one holding the committed link is modified", async () => {
	const root = await makeTempDir();
	dirs.push(root);
	await mkdir(join(root, "zz"));
	await symlink("PASS", join(root, "zz/mode"));
	const link: Entry = { path: "zz/mode", mode: "120000", type: "blob", blob: blobId(new TextEncoder().encode("FAIL"), 40), check: "raw" };
	const stats = await fingerprint(root, [link]);
	expect((await verify(root, [link], new Map(), noCheckout, root, stats))?.get("zz/mode")).toBe("modified");
	// The committed link, in a folder swapped in after the look's stat.
	await mkdir(join(root, "decoy"));
	await symlink("FAIL", join(root, "decoy/mode"));
	await rename(join(root, "zz"), join(root, "real"));
	await rename(join(root, "decoy"), join(root, "zz"));
	expect((await verify(root, [link], new Map(), noCheckout, root, stats))?.get("zz/mode")).toBe("modified");
	// Judged afresh, the committed link matches.
	expect((await verify(root, [link], new Map(), noCheckout, root, await fingerprint(root, [link])))?.has("zz/mode")).toBe(false);
});

test("the compiled binary carries the evidence's worker thread: doctor finds it starts and answers", async () => {
	const { onlyJson, runDiscern } = await import("../../helpers/cli.ts");
	const root = await makeTempDir();
	dirs.push(root);
	const run = await runDiscern(["doctor", "--json"], { cwd: root });
	const checks = (onlyJson(run.stdout).data as { checks: { id: string; state: string }[] }).checks;
	expect(checks.find((check) => check.id === "evidence_workers")?.state).toBe("ok");
});
