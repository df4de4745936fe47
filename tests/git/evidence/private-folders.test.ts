import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateFolder, removeAbandonedFolders } from "../../../src/git/evidence/private-folders.ts";
import { done } from "../../../src/proof/done.ts";
import { makeRepo, type TestRepo } from "../../helpers/repo.ts";

/** Private folders a discern killed outright left in the temp folder go once their process is gone and a day has passed. */
let temp = "";
const made: TestRepo[] = [];
const savedTmp = process.env.TMPDIR;

afterEach(async () => {
	if (savedTmp === undefined) delete process.env.TMPDIR;
	else process.env.TMPDIR = savedTmp;
	for (const r of made.splice(0)) await r.remove();
	if (temp) await rm(temp, { recursive: true, force: true });
	temp = "";
});

/** A PID that was a process a moment ago and is not one now. */
async function goneProcess(): Promise<number> {
	const child = Bun.spawn(["true"]);
	await child.exited;
	return child.pid;
}

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
/** The file that keeps the time of the last look through the temp folder. */
const MARK = `discern-evidence-swept-${process.getuid?.() ?? "any"}`;

async function folder(name: string, ageMs: number): Promise<string> {
	const path = join(temp, name);
	await mkdir(join(path, "objects-abcdef"), { recursive: true });
	await writeFile(join(path, "index"), "x");
	const when = new Date(Date.now() - ageMs);
	await utimes(path, when, when);
	return name;
}

describe("abandoned private folders", () => {
	test("only this user's, by the evidence's name, whose process is gone and which a day left unchanged, are removed", async () => {
		temp = await mkdtemp(join(tmpdir(), "private-folders-"));
		process.env.TMPDIR = temp;
		const gone = await goneProcess();
		const abandoned = await folder(`discern-evidence-${gone}-aB3xY9`, 2 * DAY);
		const kept = [
			await folder(`discern-evidence-${gone}-Zz9zz9`, DAY / 2), // recent: maybe another PID namespace's run
			await folder(`discern-evidence-${process.pid}-Qq1qq1`, 2 * DAY), // this process's own
			await folder(`discern-evidence-${process.ppid}-Pp2pp2`, 2 * DAY), // a running process's
			await folder("discern-evidence-Ab12Cd", 2 * DAY), // no PID in the name
			await folder(`other-${gone}-aB3xY9`, 2 * DAY),
		];
		await writeFile(join(temp, `discern-evidence-${gone}-file00`), "a file, not a folder");
		await symlink(join(temp, kept[0] as string), join(temp, `discern-evidence-${gone}-link00`));
		await removeAbandonedFolders();
		const left = await readdir(temp);
		expect(left).not.toContain(abandoned);
		expect(left.sort()).toEqual([...kept, `discern-evidence-${gone}-file00`, `discern-evidence-${gone}-link00`, MARK].sort());
	});

	test("the temp folder is looked through at most once an hour, and not at all where its mark is not this user's file", async () => {
		temp = await mkdtemp(join(tmpdir(), "private-folders-"));
		process.env.TMPDIR = temp;
		const gone = await goneProcess();
		await removeAbandonedFolders();
		const later = await folder(`discern-evidence-${gone}-aB3xY9`, 2 * DAY);
		await removeAbandonedFolders();
		expect(await readdir(temp)).toContain(later);
		await removeAbandonedFolders(Date.now() + 2 * HOUR);
		expect(await readdir(temp)).not.toContain(later);
		// A link at the mark's name (someone else's, in a shared temp folder): nothing is looked at, nothing written through it.
		await rm(join(temp, MARK));
		const elsewhere = join(temp, "elsewhere.txt");
		await writeFile(elsewhere, "kept");
		await symlink(elsewhere, join(temp, MARK));
		const abandoned = await folder(`discern-evidence-${gone}-Cc3cc3`, 2 * DAY);
		await removeAbandonedFolders(Date.now() + 4 * HOUR);
		expect(await readdir(temp)).toContain(abandoned);
		expect(await Bun.file(elsewhere).text()).toBe("kept");
	});

	test("a gate's own folder is named for its process, and the gate removes an abandoned one while its jobs run", async () => {
		temp = await mkdtemp(join(tmpdir(), "private-folders-"));
		process.env.TMPDIR = temp;
		const own = await privateFolder();
		if ("failed" in own) throw new Error(own.failed);
		expect(own.dir.startsWith(join(temp, `discern-evidence-${process.pid}-`))).toBe(true);
		await rm(own.dir, { recursive: true });
		const abandoned = await folder(`discern-evidence-${await goneProcess()}-aB3xY9`, 2 * DAY);
		const r = await makeRepo({ config: '[jobs]\ntest = "true"\n' });
		made.push(r);
		const result = await done(r.ctx(), {});
		expect(result.ok).toBe(true);
		expect(await readdir(temp)).not.toContain(abandoned);
		// The gate's own folder went with it.
		expect((await readdir(temp)).filter((name) => name.startsWith("discern-evidence-"))).toEqual([MARK]);
	});
});
