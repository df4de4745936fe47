import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fail } from "../../src/contract/envelope.ts";
import { onlyJson, REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

/**
 * `discern impact --has web && run_web_tests`: when discern cannot answer,
 * the tests must run. Exit 0 and one line on stderr — never 1 ("not
 * touched"), never 2, whatever stopped it (SPEC §8).
 */
const SCOPED = '[jobs]\ntest = "true"\n[scopes.web]\npaths = ["web/**"]\n';

let outside: string;
const repos: TestRepo[] = [];
beforeAll(async () => {
	outside = await makeTempDir();
});
afterAll(async () => {
	await rm(outside, { recursive: true, force: true });
	await Promise.all(repos.map((r) => r.remove()));
});

async function repo(config?: string): Promise<TestRepo> {
	const made = await makeRepo(config === undefined ? {} : { config });
	repos.push(made);
	return made;
}

/** The script line people write, run by a real shell. */
async function guarded(cwd: string, scope = "web"): Promise<{ exitCode: number; stdout: string; stderr: string }> {
	const child = Bun.spawn(["sh", "-c", `"$BUN" "$MAIN" impact --has "$SCOPE" && echo RAN`], {
		cwd,
		env: { ...process.env, NO_COLOR: "1", BUN: process.execPath, MAIN: join(REPO_ROOT, "src/main.ts"), SCOPE: scope },
		stdout: "pipe",
		stderr: "pipe",
	});
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { exitCode, stdout, stderr };
}

function expectOneWarning(stderr: string, code: string): void {
	expect(stderr.endsWith("\n")).toBe(true);
	expect(stderr.trimEnd().split("\n")).toHaveLength(1);
	expect(stderr).toContain("so it counts as touched");
	expect(stderr).toContain(`(${code})`);
}

describe("impact --has fails open when it cannot answer", () => {
	test("outside a repository", async () => {
		const run = await guarded(outside);
		expect(run.stdout).toBe("RAN\n");
		expectOneWarning(run.stderr, "no_repository");
	});

	test("with an invalid discern.toml", async () => {
		const r = await repo('[jobs]\ntest = 5\n[scopes.web]\npaths = ["web/**"]\n');
		const run = await guarded(r.root);
		expect(run.stdout).toBe("RAN\n");
		expectOneWarning(run.stderr, "invalid_config");
	});

	test("without a discern.toml", async () => {
		const run = await guarded((await repo()).root);
		expect(run.stdout).toBe("RAN\n");
		expectOneWarning(run.stderr, "no_project");
	});

	test("for a scope the config does not declare (a renamed scope must not skip its checks)", async () => {
		const run = await guarded((await repo(SCOPED)).root, "wbe");
		expect(run.stdout).toBe("RAN\n");
		expectOneWarning(run.stderr, "invalid_arguments");
		expect(run.stderr).toContain("did you mean `web`?");
	});

	test("for a --cwd that leads nowhere", async () => {
		const run = await runDiscern(["impact", "--has", "web", "--cwd", join(outside, "missing")]);
		expect([run.exitCode, run.stdout]).toEqual([0, ""]);
		expectOneWarning(run.stderr, "no_repository");
	});

	test("a real answer is unchanged: not touched is 1 and silent, touched is 0 and silent", async () => {
		const r = await repo(SCOPED);
		expect(await guarded(r.root)).toEqual({ exitCode: 1, stdout: "", stderr: "" });
		await r.write("web/page.html", "<p>new</p>");
		expect(await guarded(r.root)).toEqual({ exitCode: 0, stdout: "RAN\n", stderr: "" });
	});

	test("a crash answers the same way: runCli hands silentExit the internal_error result", async () => {
		const { verb } = await import("../../src/verbs/impact/index.ts");
		const crashed = fail("impact", "internal_error", "discern hit an internal error: boom.", ["This is a bug in discern."]);
		const answer = verb.silentExit(crashed, { has: "web" });
		expect(answer?.code).toBe(0);
		expectOneWarning(`${answer?.warning}\n`, "internal_error");
		// Without a question there is nothing to answer silently: the crash is reported as a crash.
		expect(verb.silentExit(crashed, {})).toBeNull();
	});

	test("with --json the envelope says what went wrong, exit 1, stderr quiet", async () => {
		const run = await runDiscern(["impact", "--has", "web", "--json"], { cwd: outside });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toBe("");
		const envelope = onlyJson(run.stdout);
		expect([envelope.ok, envelope.error]).toEqual([false, "no_repository"]);
	});
});

describe("a --has question asked wrongly", () => {
	for (const args of [["--has", ""], ["--has"]]) {
		test(`\`discern impact ${args.join(" ")}\` fails open: exit 0, one warning on stderr, nothing on stdout`, async () => {
			const run = await runDiscern(["impact", ...args], { cwd: REPO_ROOT });
			expect(run.exitCode).toBe(0);
			expect(run.stdout).toBe("");
			expect(run.stderr.trim().split("\n")).toHaveLength(1);
			expect(run.stderr).toContain("so the answer is yes");
		});
	}
});
