import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync } from "node:fs";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lastWritten, recordWritten } from "../../src/agents/written-record.ts";
import { newRunDir, pruneRuns } from "../../src/jobs/run-folders.ts";
import { readProof } from "../../src/proof/record.ts";
import { sealer } from "../../src/proof/seal.ts";
import { type Journal, readJournal, writeJournal } from "../../src/verbs/accept/journal.ts";
import { readTask, writeTask } from "../../src/worktree/task.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * discern's state lives in the git dir (`<git dir>/discern/…`), which an
 * agent can write, while discern may run as the person outside the agent's
 * sandbox: no state path is followed through a link, so a link there can
 * never make discern write, or delete, anything outside the git dir.
 */
const cleanup: string[] = [];
const repos: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(repos.splice(0).map((r) => r.remove()));
	await Promise.all(cleanup.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const CONFIG = `[jobs]
lint = "true"
test = "true"
`;

async function repo(): Promise<TestRepo> {
	const r = await makeRepo({ config: CONFIG });
	repos.push(r);
	return r;
}

/** A person's folder outside the repository: eight folders of notes, as in the review's repro. */
const NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
async function personsFolder(): Promise<string> {
	const dir = await makeTempDir("discern-victim-");
	cleanup.push(dir);
	for (const name of NAMES) {
		await mkdir(join(dir, name));
		await writeFile(join(dir, name, "notes.txt"), `${name}'s notes\n`);
	}
	return dir;
}

/** The person's folder exactly as it was made: its eight folders, each with its notes, and nothing else. */
async function expectUntouched(dir: string): Promise<void> {
	expect((await readdir(dir)).sort()).toEqual([...NAMES].sort());
	for (const name of NAMES) {
		expect(await readdir(join(dir, name))).toEqual(["notes.txt"]);
		expect(await readFile(join(dir, name, "notes.txt"), "utf8")).toBe(`${name}'s notes\n`);
	}
}

async function runJson(verb: string, cwd: string): Promise<{ exitCode: number; envelope: Record<string, unknown> }> {
	const run = await runDiscern([verb, "--json"], { cwd });
	const envelope = onlyJson(run.stdout);
	expectValidEnvelope(verb, envelope);
	return { exitCode: run.exitCode, envelope };
}

describe("a `runs` folder that is a link (hostile review A, F1)", () => {
	for (const verb of ["test", "prepare", "done"]) {
		test(`\`${verb}\` neither deletes nor writes anything where it leads; it refuses with write_denied naming the link`, async () => {
			const r = await repo();
			const victim = await personsFolder();
			await mkdir(join(r.root, ".git/discern"), { recursive: true });
			await symlink(victim, join(r.root, ".git/discern/runs"));
			const { exitCode, envelope } = await runJson(verb, r.root);
			expect(exitCode).not.toBe(70);
			expect(envelope.ok).toBe(false);
			expect(envelope.error).toBe("write_denied");
			expect(String(envelope.message)).toContain("runs");
			await expectUntouched(victim);
			expect(lstatSync(join(r.root, ".git/discern/runs")).isSymbolicLink()).toBe(true);
		});
	}

	test("a job that swaps `runs` for a link mid-run: no later job's log is written where it leads", async () => {
		const victim = await personsFolder();
		const r = await makeRepo({
			config: `[jobs.swap]\nstage = "fix"\nrun = "rm -rf .git/discern/runs && ln -s '${victim}' .git/discern/runs"\n[jobs.lint]\nstage = "check"\nrun = "echo checked"\n`,
		});
		repos.push(r);
		const { exitCode, envelope } = await runJson("prepare", r.root);
		expect(exitCode).not.toBe(70);
		expect(envelope.ok).toBe(false);
		expect(envelope.error).toBe("write_denied");
		await expectUntouched(victim);
	});

	test("`start` (in the main checkout) refuses with write_denied and rolls back; nothing where the link leads is touched", async () => {
		const r = await repo();
		const victim = await personsFolder();
		await mkdir(join(r.root, ".git/discern"), { recursive: true });
		await symlink(victim, join(r.root, ".git/discern/runs"));
		const run = await runDiscern(["start", "--name", "t", "--json"], { cwd: r.root });
		const envelope = onlyJson(run.stdout);
		expectValidEnvelope("start", envelope);
		cleanup.push(`${r.root}.worktrees`);
		expect(run.exitCode).not.toBe(70);
		expect(envelope.error).toBe("write_denied");
		expect((envelope.data as { rolled_back: boolean }).rolled_back).toBe(true);
		await expectUntouched(victim);
		expect((await r.git("worktree", "list")).trim().split("\n")).toHaveLength(1);
	});

	test("pruning never deletes through a `runs` link, nor an entry of a real `runs` folder that is a link", async () => {
		const r = await repo();
		const gitDir = join(r.root, ".git");
		const victim = await personsFolder();
		// Six runs, the oldest a link to the person's folder: beyond the five kept, it would go.
		await mkdir(join(gitDir, "discern/runs"), { recursive: true });
		await symlink(victim, join(gitDir, "discern/runs/0000-old-run-link"));
		const runs: string[] = [];
		for (let n = 0; n < 6; n++) {
			runs.push(await newRunDir(gitDir, "test", { prune: false }));
			await Bun.sleep(2);
		}
		await pruneRuns(runs.at(-1) as string);
		expect(lstatSync(join(gitDir, "discern/runs/0000-old-run-link")).isSymbolicLink()).toBe(true);
		await expectUntouched(victim);
		// The real runs beyond the five newest went.
		expect(existsSync(runs[0] as string)).toBe(false);

		// `runs` replaced by a link after the run folder was made: pruning looks nowhere.
		const current = runs.at(-1) as string;
		await rm(join(gitDir, "discern/runs"), { recursive: true });
		await symlink(victim, join(gitDir, "discern/runs"));
		await pruneRuns(join(gitDir, "discern/runs", NAMES[0] as string));
		await pruneRuns(current);
		await expectUntouched(victim);
	});
});

describe("a `discern` state folder that is a link", () => {
	test("`test` refuses with write_denied before writing anything (no run folder, no last run, no lock, no logbook there)", async () => {
		const r = await repo();
		const outside = await makeTempDir("discern-outside-");
		cleanup.push(outside);
		await symlink(outside, join(r.root, ".git/discern"));
		const { exitCode, envelope } = await runJson("test", r.root);
		expect(exitCode).not.toBe(70);
		expect(envelope.error).toBe("write_denied");
		expect(String(envelope.message)).toContain("discern");
		expect(await readdir(outside)).toEqual([]);
	});

	test("`done` and `status` neither write nor read the state it leads to", async () => {
		const r = await repo();
		const outside = await makeTempDir("discern-outside-");
		cleanup.push(outside);
		await writeFile(join(outside, "last-run.json"), "planted\n");
		await symlink(outside, join(r.root, ".git/discern"));
		const done = await runJson("done", r.root);
		expect(done.exitCode).not.toBe(70);
		expect(done.envelope.error).toBe("write_denied");
		expect(await readdir(outside)).toEqual(["last-run.json"]);
		expect(await readFile(join(outside, "last-run.json"), "utf8")).toBe("planted\n");
		const status = await runJson("status", r.root);
		expect(status.envelope.ok).toBe(true);
		expect(await readdir(outside)).toEqual(["last-run.json"]);
	});

	test("a Proof sealed and put where the link leads is not read back", async () => {
		const r = await repo();
		const gitDir = join(r.root, ".git");
		expect((await runJson("done", r.root)).envelope.ok).toBe(true);
		expect(await readProof(gitDir)).not.toBeNull();
		// The whole folder moved elsewhere, a link left in its place: the Proof there is not this checkout's any more.
		const outside = join(await makeTempDir("discern-outside-"), "moved");
		cleanup.push(outside);
		await Bun.$`mv ${join(gitDir, "discern")} ${outside}`.quiet();
		await symlink(outside, join(gitDir, "discern"));
		expect(await readProof(gitDir)).toBeNull();
	});
	test("`uninstall`: a state folder swapped for a link after the plan (while the person confirms) is not deleted through", async () => {
		const r = await repo();
		expect((await runJson("test", r.root)).envelope.ok).toBe(true);
		const victim = await personsFolder();
		await mkdir(join(victim, "runs"));
		await writeFile(join(victim, "runs/keep.txt"), "the person's\n");
		await writeFile(join(victim, "last-run.json"), "the person's\n");
		const aside = await makeTempDir("discern-aside-");
		cleanup.push(aside);
		const result = await invokeVerb(
			"uninstall",
			r.ctx({
				confirm: async () => {
					await Bun.$`mv ${join(r.root, ".git/discern")} ${join(aside, "discern")}`.quiet();
					await symlink(victim, join(r.root, ".git/discern"));
					return true;
				},
			}),
			{},
		);
		expectValidEnvelope("uninstall", result);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("write_denied");
		expect(await readFile(join(victim, "runs/keep.txt"), "utf8")).toBe("the person's\n");
		expect(await readFile(join(victim, "last-run.json"), "utf8")).toBe("the person's\n");
	});
});

describe("a state file that is a link (hostile review A, F9)", () => {
	test("`done` with proof.json a link: a controlled write_denied naming it, a valid envelope, nothing written through", async () => {
		const r = await repo();
		const outside = await makeTempDir("discern-outside-");
		cleanup.push(outside);
		await writeFile(join(outside, "person.txt"), "the person's file\n");
		await mkdir(join(r.root, ".git/discern"), { recursive: true });
		await symlink(join(outside, "person.txt"), join(r.root, ".git/discern/proof.json"));
		const { exitCode, envelope } = await runJson("done", r.root);
		expect(exitCode).not.toBe(70);
		expect(envelope.ok).toBe(false);
		expect(envelope.error).toBe("write_denied");
		expect(String(envelope.message)).toContain("proof.json");
		expect(await readFile(join(outside, "person.txt"), "utf8")).toBe("the person's file\n");
		expect(lstatSync(join(r.root, ".git/discern/proof.json")).isSymbolicLink()).toBe(true);
	});

	test("task.json a link: not written through, not read through", async () => {
		const r = await repo();
		const gitDir = join(r.root, ".git");
		const outside = await makeTempDir("discern-outside-");
		cleanup.push(outside);
		const task = { version: 1, id: "x", title: null, brief: null, branch: "b", base: "0", from: "main", created_at: "now", created_by: "discern" } as const;
		await writeFile(join(outside, "task.json"), JSON.stringify(task));
		await mkdir(join(gitDir, "discern"), { recursive: true });
		await symlink(join(outside, "task.json"), join(gitDir, "discern/task.json"));
		expect(await readTask(gitDir)).toBeNull();
		await expect(writeTask(gitDir, { ...task, id: "y" })).rejects.toMatchObject({ code: "ESTATELINK" });
		expect(JSON.parse(await readFile(join(outside, "task.json"), "utf8")).id).toBe("x");
	});
});

describe("refresh's record of what it wrote (discern/generated.json)", () => {
	test("a `discern` link, even to a folder inside the git dir, is neither written nor read through", async () => {
		const r = await repo();
		const gitDir = join(r.root, ".git");
		await mkdir(join(gitDir, "elsewhere"));
		await writeFile(join(gitDir, "elsewhere/generated.json"), JSON.stringify({ version: 1, files: { "AGENTS.md": "planted" } }));
		await symlink(join(gitDir, "elsewhere"), join(gitDir, "discern"));
		expect(await lastWritten(gitDir, "AGENTS.md")).toBeNull();
		await recordWritten(gitDir, "AGENTS.md", "text");
		expect(JSON.parse(await readFile(join(gitDir, "elsewhere/generated.json"), "utf8")).files).toEqual({ "AGENTS.md": "planted" });
	});
});

describe("an accept journal folder that is a link", () => {
	function journal(): Journal {
		return {
			version: 1,
			state: "landing",
			branch: "agent/x",
			id: null,
			path: "/nowhere",
			trunk: "main",
			sha: "a".repeat(40),
			previous_trunk_sha: "b".repeat(40),
			proof_line: "Proof: agent/x",
			proof: {},
			checkout: null,
			consent: "confirmed",
			done: [],
			destroyed: [],
			time: "now",
		};
	}

	test("no journal is written through it, and a sealed journal where it leads is not read", async () => {
		const r = await repo();
		const commonDir = join(r.root, ".git");
		await sealer(commonDir);
		const outside = await makeTempDir("discern-outside-");
		cleanup.push(outside);
		// A genuine journal, written, then its folder moved out and linked back.
		await writeJournal(commonDir, journal());
		expect(await readJournal(commonDir, "agent/x")).not.toBeNull();
		await Bun.$`mv ${join(commonDir, "discern/accept")} ${join(outside, "accept")}`.quiet();
		await symlink(join(outside, "accept"), join(commonDir, "discern/accept"));
		expect(await readJournal(commonDir, "agent/x")).toBeNull();
		const before = await readFile(join(outside, "accept/agent%2Fx.json"), "utf8");
		await expect(writeJournal(commonDir, { ...journal(), state: "landed" })).rejects.toMatchObject({ code: "ESTATELINK" });
		expect(await readFile(join(outside, "accept/agent%2Fx.json"), "utf8")).toBe(before);
		expect(await readdir(join(outside, "accept"))).toEqual(["agent%2Fx.json"]);
	});
});
