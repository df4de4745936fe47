import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import pkg from "../../package.json" with { type: "json" };
import { COMING_VERBS, unknownVerb } from "../../src/verbs/help/unknown.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";
import { surfaceWords } from "../helpers/words.ts";

let repo: TestRepo;
let outside: string;
beforeAll(async () => {
	repo = await makeRepo();
	outside = await makeTempDir();
});
afterAll(async () => {
	await repo.remove();
	await rm(outside, { recursive: true, force: true });
});

describe("CLI conventions", () => {
	test("--version prints the version and exits 0", async () => {
		const run = await runDiscern(["--version"]);
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toBe(`discern ${pkg.version}\n`);
	});

	test("an unknown verb suggests the closest one and exits 2", async () => {
		const run = await runDiscern(["stauts"], { cwd: repo.root });
		expect(run.exitCode).toBe(2);
		expect(run.stdout.toLowerCase()).toContain("did you mean");
		expect(run.stdout.toLowerCase()).toContain("`status`");
	});

	test("a verb of the design that is not built yet says so", () => {
		// Every verb of the design is built (COMING_VERBS is empty): a made-up one stands in for the next.
		expect(COMING_VERBS).toEqual([]);
		const coming = unknownVerb("teleport", surfaceWords("cli"), undefined, ["teleport"]);
		expect(coming.ok).toBe(false);
		expect(coming.ok ? null : coming.error).toBe("unknown_command");
		expect(coming.message).toContain("not in this build");
		expect(unknownVerb("teleport", surfaceWords("cli")).message).toContain("Unknown verb `teleport`");
	});

	test("an unknown flag is named and exits 2", async () => {
		const run = await runDiscern(["status", "--frobnicate"], { cwd: repo.root });
		expect(run.exitCode).toBe(2);
		expect(run.stdout).toContain("`--frobnicate`");
	});

	test("a flag missing its value is a usage error", async () => {
		const run = await runDiscern(["docs", "--search", "--json"], { cwd: repo.root });
		// `--json` is global, so `--search` has no value left.
		expect(run.exitCode).toBe(2);
		expect(onlyJson(run.stdout).error).toBe("invalid_arguments");
	});

	test("an extra positional word is refused", async () => {
		const run = await runDiscern(["status", "extra", "--json"], { cwd: repo.root });
		expect(run.exitCode).toBe(2);
		expect(String(onlyJson(run.stdout).message)).toContain("`extra`");
	});

	test("a mistyped sub-command names the ones there are, and the nearest", async () => {
		const run = await runDiscern(["setup", "verfy", "--json"], { cwd: repo.root });
		expect(run.exitCode).toBe(2);
		const envelope = onlyJson(run.stdout) as { message: string; hints: string[]; error: string };
		expect(envelope.error).toBe("unknown_command");
		expect(envelope.message).toBe("`setup` has no sub-command `verfy`; it has `verify`.");
		expect(envelope.hints[0]).toBe("Did you mean `discern setup verify`?");
		const bare = onlyJson((await runDiscern(["config", "--json"], { cwd: repo.root })).stdout) as { message: string };
		expect(bare.message).toBe("`config` needs a sub-command: `get`, `set` or `validate`.");
	});

	test("--help on a verb shows its flags", async () => {
		const run = await runDiscern(["docs", "--help"]);
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("--search");
		expect(run.stdout).toContain("MCP tool: discern_docs");
	});

	test("--verbose is accepted by every verb (fuller text) and by doctor as its own flag", async () => {
		const status = await runDiscern(["status", "--verbose"], { cwd: repo.root });
		expect(status.exitCode).toBe(0);
		const doctor = await runDiscern(["doctor", "--verbose", "--json"], { cwd: repo.root });
		expect(onlyJson(doctor.stdout).verb).toBe("doctor");
	});

	test("no verb prints grouped help", async () => {
		const run = await runDiscern([]);
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("Daily loop");
		expect(run.stdout).toContain("status");
	});

	test("outside a repository, project verbs refuse with no_repository (exit 1) but docs works", async () => {
		const status = await runDiscern(["status", "--json"], { cwd: outside });
		expect(status.exitCode).toBe(1);
		expect(onlyJson(status.stdout).error).toBe("no_repository");
		const docs = await runDiscern(["docs", "--json"], { cwd: outside });
		expect(docs.exitCode).toBe(0);
	});

	test("a repository without discern.toml: status points at setup; config refuses with no_project", async () => {
		const status = onlyJson((await runDiscern(["status", "--json"], { cwd: repo.root })).stdout);
		expect((status.data as { next: { action: string } }).next.action).toBe("discern setup");
		const config = await runDiscern(["config", "validate", "--json"], { cwd: repo.root });
		expect(config.exitCode).toBe(1);
		expect(onlyJson(config.stdout).error).toBe("no_project");
	});

	test("text output has no color when NO_COLOR is set or stdout is not a TTY", async () => {
		const run = await runDiscern(["status"], { cwd: repo.root });
		expect(run.stdout).not.toContain("\u001B[");
	});

	test("`impact --has SCOPE` answers with its exit code alone; with --json it is an envelope, exit 0", async () => {
		const scoped = await makeRepo({ config: '[jobs]\ntest = "true"\n[scopes.web]\npaths = ["web/**"]\n' });
		try {
			const untouched = await runDiscern(["impact", "--has", "web"], { cwd: scoped.root });
			expect([untouched.exitCode, untouched.stdout, untouched.stderr]).toEqual([1, "", ""]);
			await scoped.write("web/page.html", "<p>new</p>");
			const touched = await runDiscern(["impact", "--has", "web"], { cwd: scoped.root });
			expect([touched.exitCode, touched.stdout]).toEqual([0, ""]);
			const json = await runDiscern(["impact", "--has", "docs", "--json"], { cwd: scoped.root });
			expect(json.exitCode).toBe(2);
			const asJson = await runDiscern(["impact", "--has", "code", "--json"], { cwd: scoped.root });
			expect(asJson.exitCode).toBe(0);
			expect((onlyJson(asJson.stdout).data as { membership: boolean }).membership).toBe(true);
		} finally {
			await scoped.remove();
		}
	});

	test("--cwd must name an existing folder", async () => {
		for (const cwd of [`${repo.root}/README.md`, "/nonexistent-discern-dir"]) {
			const run = await runDiscern(["status", "--json", "-C", cwd]);
			expect(run.exitCode).toBe(1);
			expect(onlyJson(run.stdout).error).toBe("no_repository");
		}
		expect((await runDiscern(["--cwd", "--json", "status"])).exitCode).toBe(2);
	});

	test("`mcp` has help, and refuses arguments it does not take", async () => {
		const help = await runDiscern(["help", "mcp"]);
		expect(help.exitCode).toBe(0);
		expect(help.stdout).toContain("Usage: discern mcp");
		const bad = await runDiscern(["mcp", "--bogus", "--json"]);
		expect(bad.exitCode).toBe(2);
		expect(onlyJson(bad.stdout).error).toBe("invalid_arguments");
	});

	test("a negative number is a value, not a flag", async () => {
		const r = await makeRepo({ config: '[standards.size]\nrun = "x"\ndirection = "down"\nlimit = 1\n' });
		try {
			const run = await runDiscern(["config", "set", "standards.size.limit", "-3", "--json"], { cwd: r.root });
			expect(onlyJson(run.stdout).ok).toBe(true);
		} finally {
			await r.remove();
		}
	});
});
