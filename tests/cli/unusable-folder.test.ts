import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, symlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { shellWord } from "../../src/text/shell-quote.ts";
import { doctor } from "../../src/verbs/doctor/doctor.ts";
import { status } from "../../src/verbs/status/status.ts";
import { ensureBinary, onlyJson, REPO_ROOT } from "../helpers/cli.ts";
import { makeTempDir, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * A folder discern cannot work in is named for what is wrong with it — a
 * name that is not UTF-8, a loop of symbolic links — never "not a git
 * repository" or "does not exist", and never a crash.
 */
let dir: string;
/** The folder's real name is the bytes `a 0xFF b`; JavaScript strings see `a\uFFFDb`. */
let undecodable: string;
beforeAll(async () => {
	dir = await makeTempDir("discern-folder-");
	// A real repository with a commit inside it: it is the folder's name alone that stops discern.
	const made = Bun.spawnSync(
		["sh", "-c", `mkdir "$(printf 'a\\377b')" && cd "$(printf 'a\\377b')" && git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x`],
		{
			cwd: dir,
			stderr: "pipe",
		},
	);
	expect(made.stderr.toString()).toBe("");
	expect(made.exitCode).toBe(0);
	const raw = Buffer.concat([Buffer.from(`${dir}/a`), Buffer.from([0xff]), Buffer.from("b")]);
	expect(existsSync(raw)).toBe(true);
	undecodable = raw.toString("utf8");
	symlinkSync(join(dir, "loop-b"), join(dir, "loop-a"));
	symlinkSync(join(dir, "loop-a"), join(dir, "loop-b"));
});
afterAll(async () => {
	await rm(dir, { recursive: true, force: true });
});

/** Run the CLI from source in a shell, so the working folder and --cwd can be raw bytes. */
async function inShell(script: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
	const child = Bun.spawn(["sh", "-c", script], {
		cwd: dir,
		env: { ...process.env, NO_COLOR: "1", DISCERN: `${process.execPath} ${join(REPO_ROOT, "src/main.ts")}` },
		stdout: "pipe",
		stderr: "pipe",
	});
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { exitCode, stdout, stderr };
}

describe("a folder whose name is not valid UTF-8", () => {
	test("started inside it: a refusal that names the bytes, not a crash or 'does not exist'", async () => {
		const run = await inShell(`cd "$(printf 'a\\377b')" && $DISCERN status --json`);
		expect(run.stderr).toBe("");
		expect(run.exitCode).toBe(1);
		const result = onlyJson(run.stdout) as unknown as AnyResult;
		expectValidEnvelope("status", result);
		expect(result.ok ? null : result.error).toBe("no_repository");
		expect(result.message).toContain("is not valid UTF-8");
		expect(result.message).not.toContain("does not exist");
		expect(result.message).not.toContain("not inside a git repository");
	});

	test("named with --cwd, and in text: the same", async () => {
		const run = await inShell(`$DISCERN status --cwd "$(printf 'a\\377b')"`);
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toContain("is not valid UTF-8");
		expect(run.stderr).toBe("");
	});

	test("the core and doctor say it for the path the runtime hands them", async () => {
		const result = (await status(testContext(undecodable), {})) as AnyResult;
		expectValidEnvelope("status", result);
		expect(result.message).toContain("is not valid UTF-8");
		const checked = (await doctor(testContext(undecodable), {})) as AnyResult;
		expectValidEnvelope("doctor", checked);
		expect(checked.ok ? null : checked.error).toBe("no_repository");
		expect(checked.message).toContain("is not valid UTF-8");
	});

	test("a missing folder that merely has U+FFFD in its name is just missing", async () => {
		const result = (await status(testContext(join(dir, "nothing\uFFFDhere")), {})) as AnyResult;
		expect(result.message).toContain("it does not exist");
	});
});

describe("a --cwd that is a loop of symbolic links", () => {
	test("the CLI names the loop", async () => {
		const run = await inShell("$DISCERN status --cwd loop-a");
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain(`loop of symbolic links (${dir}/loop-a → ${dir}/loop-b → ${dir}/loop-a)`);
		expect(run.stdout).not.toContain("not inside a git repository");
	});

	test("doctor and --json too", async () => {
		const run = await inShell("$DISCERN doctor --cwd loop-b --json");
		const result = onlyJson(run.stdout) as unknown as AnyResult;
		expectValidEnvelope("doctor", result);
		expect(result.message).toContain("loop of symbolic links");
	});
});

/**
 * `accept` run inside a task's worktree removes it: the shell then stands in
 * a folder that is gone, and the process has no working folder at all. Every
 * verb still answers with its envelope, pointing at the main checkout,
 * from source and from the built binary (whose runtime, built without an
 * embedded flag, stopped before any of discern ran: build.ts).
 */
describe("a working folder deleted under the caller", () => {
	const VERBS = ["status", "done", "accept", "update", "start", "worktree list", "doctor", "prepare", "map", "setup"];

	/** A repository with a task worktree in the sibling folder start uses, removed while the shell stands in it. */
	function standInRemovedWorktree(command: string): string {
		return [
			"git init -q deleted-main",
			"git -C deleted-main -c user.name=t -c user.email=t@t commit -q --allow-empty -m x",
			"git -C deleted-main worktree add -q ../deleted-main.worktrees/task -b task 2>/dev/null",
			"cd deleted-main.worktrees/task",
			"git -C ../../deleted-main worktree remove ../deleted-main.worktrees/task",
			command,
		].join(" && ");
	}

	afterAll(async () => {
		await rm(join(dir, "deleted-main"), { recursive: true, force: true });
		await rm(join(dir, "deleted-main.worktrees"), { recursive: true, force: true });
	});

	test.each(VERBS)("%s --json: a no_repository envelope naming the main checkout, exit 1", async (verb) => {
		await rm(join(dir, "deleted-main"), { recursive: true, force: true });
		const run = await inShell(standInRemovedWorktree(`$DISCERN ${verb} --json`));
		expect(run.stderr).toBe("");
		expect(run.exitCode).toBe(1);
		const result = onlyJson(run.stdout) as unknown as AnyResult;
		expectValidEnvelope(verb, result);
		expect(result.ok ? null : result.error).toBe("no_repository");
		expect(result.message).toContain(`${dir}/deleted-main.worktrees/task`);
		expect(result.hints?.[0]).toBe(`The main checkout is ${dir}/deleted-main: \`cd ${dir}/deleted-main\`.`);
	});

	test("the built binary answers too", async () => {
		await rm(join(dir, "deleted-main"), { recursive: true, force: true });
		const binary = await ensureBinary();
		const run = await inShell(standInRemovedWorktree(`${shellWord(binary)} status --json`));
		expect(run.stderr).toBe("");
		expect(run.exitCode).toBe(1);
		const result = onlyJson(run.stdout) as unknown as AnyResult;
		expectValidEnvelope("status", result);
		expect(result.hints?.[0]).toBe(`The main checkout is ${dir}/deleted-main: \`cd ${dir}/deleted-main\`.`);
	});

	test("in text, and without PWD: still a refusal, never the runtime's own error", async () => {
		await rm(join(dir, "deleted-main"), { recursive: true, force: true });
		const text = await inShell(standInRemovedWorktree("$DISCERN status"));
		expect(text.exitCode).toBe(1);
		expect(text.stdout).toContain("it does not exist");
		expect(text.stdout).toContain(`cd ${dir}/deleted-main`);
		await rm(join(dir, "deleted-main"), { recursive: true, force: true });
		const unnamed = await inShell(standInRemovedWorktree("env -u PWD $DISCERN status --json"));
		expect(unnamed.exitCode).toBe(1);
		const result = onlyJson(unnamed.stdout) as unknown as AnyResult;
		expectValidEnvelope("status", result);
		expect(result.ok ? null : result.error).toBe("no_repository");
	});
});
