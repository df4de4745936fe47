import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { VerbContext } from "../../src/contract/context.ts";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { discoverRepository } from "../../src/git/discover.ts";
import { locationOf } from "../../src/git/evidence/guess.ts";
import { locateRepository } from "../../src/git/repository.ts";
import { start } from "../../src/verbs/start/start.ts";
import type { StatusData } from "../../src/verbs/status/schema.ts";
import type { WorktreeListData } from "../../src/verbs/worktree/schema.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { BASIC_CONFIG, makeTempDir, runGit, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * `git rev-parse` names folders one a line, without `-z`: a repository at
 * `…/a<newline>b` was read as the repository `…/a`, and `done` printed a
 * green Proof for that one. A folder whose path git cannot print safely is
 * refused by every verb, and a decoy where the first half of the path
 * leads is never judged, written to, or named clean.
 */
let dir: string;
/** The repository whose path holds a line break; `decoy` is where its first line leads, a real, clean, configured repository. */
let broken: string;
let decoy: string;
/** A main checkout at a plain path with a linked worktree at a path holding a line break. */
let main: string;
let linked: string;
/** A main checkout whose path holds a line break, with a linked worktree at a plain path. */
let brokenMain: string;
let plainLinked: string;

async function repository(path: string, branch = "main"): Promise<void> {
	await mkdir(path, { recursive: true });
	await runGit(path, ["init", "-q", "-b", branch]);
	await writeFile(join(path, "discern.toml"), BASIC_CONFIG);
	await runGit(path, ["add", "-A"]);
	await runGit(path, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "initial"]);
}

beforeAll(async () => {
	dir = await makeTempDir("discern-unprintable-");
	decoy = join(dir, "a");
	broken = join(dir, "a\nb");
	await repository(decoy);
	await repository(broken);
	// The broken one has a branch and a file the decoy lacks: judging it, not the decoy, can never come out green.
	await runGit(broken, ["switch", "-q", "-c", "feature"]);
	await writeFile(join(broken, "uncommitted.txt"), "work\n");
	main = join(dir, "main");
	linked = join(dir, "wt\nx");
	await repository(main);
	await runGit(main, ["worktree", "add", "-q", "-b", "line-break", linked]);
	brokenMain = join(dir, "m\nn");
	plainLinked = join(dir, "plain-linked");
	await repository(brokenMain);
	await runGit(brokenMain, ["worktree", "add", "-q", "-b", "plain", plainLinked]);
});
afterAll(async () => {
	await rm(dir, { recursive: true, force: true });
});

/** The decoy untouched: no run, Proof or lock written in its git dir or its tree. */
async function expectDecoyUntouched(): Promise<void> {
	expect((await readdir(join(decoy, ".git"))).filter((name) => name.startsWith("discern"))).toEqual([]);
	expect(existsSync(join(decoy, "b"))).toBe(false);
	expect((await runGit(decoy, ["status", "--porcelain", "--ignored"])).trim()).toBe("");
}

function ctxIn(cwd: string, env: Record<string, string> = {}): Omit<VerbContext, "repository"> {
	return testContext(cwd, { env: { PATH: process.env.PATH, ...env } });
}

/** Discovery in-process (env: none) and git's rev-parse (a GIT_CEILING_DIRECTORIES makes discern ask git): both ways in. */
const WAYS = { "found on the file system": {}, "asked of git rev-parse": { GIT_CEILING_DIRECTORIES: "/nonexistent" } } as const;

describe("a repository whose path holds a line break, beside a decoy where its first line leads", () => {
	for (const [way, env] of Object.entries(WAYS)) {
		test(`done refuses it, never a Proof for the decoy (${way})`, async () => {
			const result = await invokeVerb("done", ctxIn(broken, env));
			expectValidEnvelope("done", result);
			expect(result.ok).toBe(false);
			expect(result.ok ? null : result.error).toBe("no_repository");
			expect(result.message).toContain("line break");
			await expectDecoyUntouched();
		});

		test(`status refuses it, never reporting the decoy (${way})`, async () => {
			const result = await invokeVerb("status", ctxIn(broken, env));
			expectValidEnvelope("status", result);
			expect(result.ok ? null : result.error).toBe("no_repository");
			expect(result.message).toContain("line break");
		});

		test(`locating it says why (${way})`, async () => {
			const located = await locateRepository(broken, env);
			expect(located.found).toBe(false);
			if (!located.found) {
				expect(located.unprintable).toBe(true);
				expect(located.reason).toContain("line break");
			}
		});
	}

	test("the CLI's done --json says so and exits 1", async () => {
		const run = await runDiscern(["done", "--json"], { cwd: broken, env: { GIT_CEILING_DIRECTORIES: "/nonexistent" } });
		expect(run.stderr).toBe("");
		expect(run.exitCode).toBe(1);
		const result = onlyJson(run.stdout) as unknown as AnyResult;
		expect(result.ok ? null : result.error).toBe("no_repository");
		expect(result.message).not.toContain("Proof");
		await expectDecoyUntouched();
	});

	test("accept and update refuse it too", async () => {
		for (const verb of ["accept", "update"] as const) {
			const result = await invokeVerb(verb, ctxIn(broken, WAYS["asked of git rev-parse"]), verb === "accept" ? { confirmed: true } : {});
			expectValidEnvelope(verb, result);
			expect(result.ok ? null : result.error).toBe("no_repository");
		}
		await expectDecoyUntouched();
	});

	test("a carriage return is refused the same way", async () => {
		const returned = join(dir, "c\rd");
		await repository(returned);
		const result = await invokeVerb("status", ctxIn(returned));
		expect(result.ok ? null : result.error).toBe("no_repository");
		expect(result.message).toContain("carriage return");
	});
});

describe("a linked worktree at a path holding a line break", () => {
	test("worktree list and status in the main checkout read it whole, and mark it a problem", async () => {
		const result = await invokeVerb("worktree list", ctxIn(main));
		expectValidEnvelope("worktree list", result);
		const data = result.data as WorktreeListData;
		expect(data.worktrees.map((entry) => entry.path)).toEqual([main, linked]);
		const entry = data.worktrees[1];
		expect(entry?.branch).toBe("line-break");
		expect(entry?.problem).toContain("line break");
		const shown = await invokeVerb("status", ctxIn(main));
		expectValidEnvelope("status", shown);
		const status = shown.data as StatusData;
		expect(status.root).toBe(main);
		expect(status.worktrees?.map((item) => [item.path, item.problem])).toEqual([[linked, entry?.problem ?? ""]]);
	});

	test("accept from the main checkout refuses to land it, naming why", async () => {
		await writeFile(join(linked, "work.txt"), "work\n");
		await runGit(linked, ["add", "-A"]);
		await runGit(linked, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "work"]);
		const trunk = await runGit(main, ["rev-parse", "main"]);
		const result = await invokeVerb("accept", ctxIn(main), { target: "line-break", confirmed: true });
		expectValidEnvelope("accept", result);
		expect(result.ok ? null : result.error).toBe("unknown_target");
		expect(result.message).toContain("line break");
		expect(await runGit(main, ["rev-parse", "main"])).toBe(trunk);
	});

	test("done and status inside it refuse", async () => {
		for (const verb of ["done", "status"] as const) {
			const result = await invokeVerb(verb, ctxIn(linked));
			expect(result.ok ? null : result.error).toBe("no_repository");
			expect(result.message).toContain("line break");
		}
	});
});

describe("a plain worktree whose main checkout's path holds a line break", () => {
	test("its .git file names the whole git dir, as git reads it", async () => {
		const found = await discoverRepository(plainLinked, {});
		expect(found?.gitDir).toBe(join(brokenMain, ".git/worktrees/plain-linked"));
		expect(found?.commonDir).toBe(join(brokenMain, ".git"));
	});

	for (const [way, env] of Object.entries(WAYS)) {
		test(`done and status refuse in it (${way})`, async () => {
			for (const verb of ["done", "status"] as const) {
				const result = await invokeVerb(verb, ctxIn(plainLinked, env));
				expectValidEnvelope(verb, result);
				expect(result.ok ? null : result.error).toBe("no_repository");
				expect(result.message).toContain("line break");
			}
		});
	}
});

describe("pointer files read as git reads them", () => {
	test("a .git file whose first line is not `gitdir: ` is not a pointer (git refuses it too)", async () => {
		const place = join(dir, "odd-pointer");
		await mkdir(place);
		await writeFile(join(place, ".git"), `junk\ngitdir: ${join(decoy, ".git")}\n`);
		expect(await discoverRepository(place, {})).toBeNull();
	});
});

describe("git's answer about the evidence's repository", () => {
	const answer = (stdout: string) => ({ exitCode: 0, stdout, stderr: "" });
	const sha = "a".repeat(40);
	test("a folder split over two lines is not read; four lines and a ref are", () => {
		expect(locationOf(answer(`/r\n/r/.git\n/r/.git\n${sha}\nrefs/heads/x\n`))).toEqual({ top: "/r", gitDir: "/r/.git", commonDir: "/r/.git", commit: sha });
		expect(locationOf(answer(`/r\n/a\nb/.git\n/a\nb/.git\n${sha}\nrefs/heads/x\n`))).toBeNull();
		// A common dir `/a<newline><hex>`: its second half where the commit belongs, the commit where the ref does.
		expect(locationOf(answer(`/r\n/r/.git\n/a\n${sha}\n${sha}\nrefs/heads/x\n`))).toBeNull();
		expect(locationOf(answer(`/r\n/r/.git\n/a\n${sha}\n${sha}\n`))).toBeNull();
	});
});

describe("start", () => {
	test("refuses a worktree folder whose path would hold a line break", async () => {
		const place = join(dir, "starting");
		await repository(place);
		await writeFile(join(place, "discern.toml"), `${BASIC_CONFIG}\n[worktree]\nroot = "../trees\\nelsewhere"\n`);
		await runGit(place, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "worktree root"]);
		const result = await start(testContext(place), { name: "task" });
		expect(result.ok ? null : result.error).toBe("invalid_config");
		expect(result.message).toContain("line break");
		expect(existsSync(join(dir, "trees\nelsewhere"))).toBe(false);
		expect((await runGit(place, ["worktree", "list", "--porcelain"])).match(/^worktree /gm)?.length).toBe(1);
	});
});
