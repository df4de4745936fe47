import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { connectInMemory } from "../helpers/mcp.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});
async function repo(config: string, files?: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ config, ...(files ? { files } : {}) });
	made.push(r);
	return r;
}

async function logbookLines(root: string): Promise<Record<string, unknown>[]> {
	const dir = join(root, ".git", "discern", "logbook");
	const files = await readdir(dir);
	expect(files.every((file) => /^\d{4}-\d{2}\.jsonl$/.test(file))).toBe(true);
	const text = (await Promise.all(files.map((file) => readFile(join(dir, file), "utf8")))).join("");
	return text
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("the logbook", () => {
	test("one metadata-only line per verb run, from the CLI and from MCP", async () => {
		const SECRET = "s3cr3t-output-marker";
		const r = await repo(`[jobs]\ntest = "echo ${SECRET}; cat secret.txt; exit 1"\n`, { "secret.txt": "FILE-CONTENT-MARKER\n" });
		await runDiscern(["status", "--json"], { cwd: r.root, env: { API_TOKEN: "ENV-VALUE-MARKER" } });
		await runDiscern(["test", "--json"], { cwd: r.root, env: { API_TOKEN: "ENV-VALUE-MARKER" } });
		const { client, close } = await connectInMemory(r.root);
		try {
			await client.callTool({ name: "discern_status", arguments: {} });
		} finally {
			await close();
		}
		const lines = await logbookLines(r.root);
		expect(lines.map((line) => [line.verb, line.surface, line.outcome])).toEqual([
			["status", "cli", "ok"],
			["test", "cli", "failed"],
			["status", "mcp", "ok"],
		]);
		const testLine = lines[1] ?? {};
		expect(testLine.error).toBe("gate_failed");
		expect(testLine.failed_stage).toBe("test");
		expect(testLine.branch).toBe("main");
		expect(String(testLine.head)).toMatch(/^[0-9a-f]{7}$/);
		expect(testLine.jobs).toEqual([{ label: "test", outcome: "failed", duration_s: expect.any(Number) }]);
		const raw = JSON.stringify(lines);
		for (const marker of [SECRET, "FILE-CONTENT-MARKER", "ENV-VALUE-MARKER", "echo "]) expect(raw).not.toContain(marker);
	});

	test("every verb run in a repository is logged by the pipeline, with where it ran; docs and help, which need none, are not", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		const head = (await r.git("rev-parse", "--short=7", "HEAD")).trim();
		for (const args of [["impact"], ["config", "get", "jobs.test"], ["setup", "verify"], ["docs"], ["help"]])
			await runDiscern([...args, "--json"], { cwd: r.root });
		const lines = await logbookLines(r.root);
		expect(lines.map((line) => [line.verb, line.branch, line.head])).toEqual([
			["impact", "main", head],
			["config get", "main", head],
			["setup verify", "main", head],
		]);
	});

	test("a logbook that cannot be written never changes the outcome", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		// A file where the logbook folder should be: every append fails.
		await mkdir(join(r.root, ".git", "discern"), { recursive: true });
		await writeFile(join(r.root, ".git", "discern", "logbook"), "not a folder");
		const run = await runDiscern(["test", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(0);
		expect(run.stderr).toBe("");
		expect(JSON.parse(run.stdout).ok).toBe(true);
	});

	test("a logbook folder or month file that is a link out of the git dir is not written through", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		const outside = await makeTempDir("discern-logbook-outside-");
		try {
			await mkdir(join(r.root, ".git", "discern"), { recursive: true });
			await symlink(outside, join(r.root, ".git", "discern", "logbook"));
			const run = await runDiscern(["status", "--json"], { cwd: r.root });
			expect(run.exitCode).toBe(0);
			expect(await readdir(outside)).toEqual([]);
			// The folder is real, the month's file a link to a person's file.
			await rm(join(r.root, ".git", "discern", "logbook"));
			await mkdir(join(r.root, ".git", "discern", "logbook"));
			const month = `${new Date().toISOString().slice(0, 7)}.jsonl`;
			await writeFile(join(outside, "notes.txt"), "mine\n");
			await symlink(join(outside, "notes.txt"), join(r.root, ".git", "discern", "logbook", month));
			expect((await runDiscern(["status", "--json"], { cwd: r.root })).exitCode).toBe(0);
			expect(await readFile(join(outside, "notes.txt"), "utf8")).toBe("mine\n");
		} finally {
			await rm(outside, { recursive: true, force: true });
		}
	});
});

describe("the checkout lock", () => {
	test("a lock held by a live process refuses at once with locked; a stale one is taken over", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		const lockPath = join(r.root, ".git", "discern", "lock");
		await mkdir(join(r.root, ".git", "discern"), { recursive: true });
		await writeFile(lockPath, JSON.stringify({ pid: process.pid, verb: "done", since: "earlier" }));
		const refused = await invokeVerb("test", r.ctx());
		expect(refused.ok ? "" : refused.error).toBe("locked");
		expect(refused.message).toContain(`pid ${process.pid}`);
		expect(await Bun.file(lockPath).exists()).toBe(true);

		// A pid that cannot be alive: the lock is stale.
		await writeFile(lockPath, JSON.stringify({ pid: 2 ** 22 + 7, verb: "done", since: "long ago" }));
		const taken = await invokeVerb("test", r.ctx());
		expect(taken.ok).toBe(true);
		expect(await Bun.file(lockPath).exists()).toBe(false);
	});
});
