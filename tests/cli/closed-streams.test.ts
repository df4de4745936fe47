import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, REPO_ROOT } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * A reader that goes away (`discern status --json | true`, `| head -c1`)
 * ends discern quietly: no stack trace or minified source on stderr, no
 * crash report, the result's own exit code. Both the compiled binary and
 * the source entry are checked: the bundle once printed its own minified
 * source with the EPIPE.
 */
let repo: TestRepo;
let scratch: string;
let binary: string;
beforeAll(async () => {
	// A config big enough that `config get jobs` prints far more than a pipe holds (64 KiB).
	const jobs = Array.from({ length: 1500 }, (_, i) => `job${i} = { run = "echo ${"x".repeat(60)} ${i}", stage = "check" }`).join("\n");
	repo = await makeRepo({ config: `[jobs]\ntest = "true"\n${jobs}\n` });
	scratch = await mkdtemp(join(tmpdir(), "discern-pipe-"));
	binary = await ensureBinary();
});
afterAll(async () => {
	await repo.remove();
	await rm(scratch, { recursive: true, force: true });
});

const RUNNERS = [
	{ name: "source", command: () => `"${process.execPath}" "${join(REPO_ROOT, "src/main.ts")}"` },
	{ name: "binary", command: () => `"${binary}"` },
];

/** Run `script` in a shell at the repo; discern's exit code and stderr land in files (its own streams are the pipes under test). */
async function shell(script: string): Promise<{ code: number; stderr: string }> {
	const rc = join(scratch, "rc");
	const err = join(scratch, "err");
	await rm(rc, { force: true });
	const child = Bun.spawn(["sh", "-c", script], {
		cwd: repo.root,
		env: { ...process.env, NO_COLOR: "1", RC: rc, ERR: err, TMPDIR: scratch },
		stdout: "ignore",
		stderr: "ignore",
	});
	await child.exited;
	return { code: Number((await readFile(rc, "utf8")).trim()), stderr: await readFile(err, "utf8").catch(() => "") };
}

async function crashReports(): Promise<string[]> {
	return await Array.fromAsync(new Bun.Glob("discern-crash-*").scan({ cwd: scratch }));
}

describe.each(RUNNERS)("a closed stdout ($name)", ({ command }) => {
	test("`status --json | true`: the reader is gone before discern writes", async () => {
		// `true` exits at once; discern starts a moment later, so its only write meets a closed pipe.
		const run = await shell(`(sleep 0.2; ${command()} status --json 2>"$ERR"; echo $? >"$RC") | true`);
		expect(run).toEqual({ code: 0, stderr: "" });
		expect(await crashReports()).toEqual([]);
	});

	test("a big output into `head -c1`: the reader leaves mid-write", async () => {
		const own = await shell(`{ ${command()} config get jobs 2>"$ERR"; echo $? >"$RC"; } | head -c1 >/dev/null`);
		expect(own).toEqual({ code: 0, stderr: "" });
		expect(await crashReports()).toEqual([]);
	});

	test("a closed stderr only loses the warning: `impact --has` still answers", async () => {
		const run = await shell(`(sleep 0.2; ${command()} impact --has web 2>&1 >"$ERR"; echo $? >"$RC") | true`);
		expect(run).toEqual({ code: 0, stderr: "" });
	});

	test("an output that cannot be written at all is one line on stderr and exit 1", async () => {
		const run = await shell(`${command()} status --json >/dev/full 2>"$ERR"; echo $? >"$RC"`);
		expect(run.code).toBe(1);
		expect(run.stderr).toBe("discern: could not write the result to stdout (ENOSPC).\n");
	});
});
