import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { onlyJson, REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

/**
 * Narration: one consola instance on stderr. Without a terminal a gate
 * prints a line per job as it finishes; --verbose adds the config file, every
 * git call with its time and every job command; --quiet and --json silence it;
 * stdout keeps only the result.
 */
let repo: TestRepo;
beforeAll(async () => {
	repo = await makeRepo({ config: '[jobs]\nlint = "true"\ntypecheck = ["true", "sleep 0.1"]\ntest = "true"\n' });
});
afterAll(async () => {
	await repo.remove();
});

describe("a gate without a terminal (a CI log)", () => {
	test("one line per finished job on stderr: label, stage, outcome, duration", async () => {
		const run = await runDiscern(["prepare"], { cwd: repo.root });
		expect(run.exitCode).toBe(0);
		const lines = run.stderr.trimEnd().split("\n");
		expect(lines).toHaveLength(2);
		expect(lines).toContainEqual(expect.stringMatching(/^✔ lint {2}check {2}ok {2}\d+\.\d\d s {2}\(\d\/2\)$/));
		expect(lines).toContainEqual(expect.stringMatching(/^✔ typecheck {2}check {2}ok {2}\d+\.\d\d s {2}\(\d\/2\)$/));
		// stdout is the result alone.
		expect(run.stdout).not.toContain("(1/2)");
		expect(run.stdout).toContain("prepare passed");
	});

	test("stdout and stderr in one log (a CI runner, `> log 2>&1`): every job is listed once", async () => {
		const scratch = await makeTempDir();
		const log = join(scratch, "log");
		const fd = openSync(log, "w");
		try {
			const child = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), "done"], {
				cwd: repo.root,
				stdin: "ignore",
				stdout: fd,
				stderr: fd,
				env: { ...process.env, NO_COLOR: "1" },
			});
			expect(await child.exited).toBe(0);
			const text = readFileSync(log, "utf8");
			for (const label of ["lint", "typecheck", "test"]) expect(text.match(new RegExp(`^✔ ${label} `, "gm"))).toHaveLength(1);
			expect(text).toContain("Proof:");
		} finally {
			closeSync(fd);
			await rm(scratch, { recursive: true, force: true });
		}
	});

	test("stdout on its own still lists every job", async () => {
		const run = await runDiscern(["prepare"], { cwd: repo.root });
		expect(run.stdout).toMatch(/^✔ lint {2}/m);
		expect(run.stdout).toMatch(/^✔ typecheck {2}/m);
	});

	test("each line comes as its job finishes, not at the end", async () => {
		// `slow` waits for a file the test writes only once it has read `lint`'s line: printed at the end, it never comes.
		const scratch = await makeTempDir();
		const go = join(scratch, "go");
		const r = await makeRepo({
			config: `[jobs]\nlint = "true"\n[jobs.slow]\nstage = "check"\nrun = "while [ ! -e '${go}' ]; do sleep 0.05; done"\ntimeout = 30\n`,
		});
		try {
			const child = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), "prepare"], {
				cwd: r.root,
				stdin: "ignore",
				stdout: "pipe",
				stderr: "pipe",
				env: { ...process.env, NO_COLOR: "1" },
			});
			const reader = child.stderr.getReader();
			let seen = "";
			while (!seen.includes("lint  check  ok")) {
				const { value, done } = await reader.read();
				if (done) break;
				seen += new TextDecoder().decode(value);
			}
			expect(seen).toContain("✔ lint  check  ok");
			expect(seen).not.toContain("slow");
			await Bun.write(go, "");
			while (true) {
				const { value, done } = await reader.read();
				if (done) break;
				seen += new TextDecoder().decode(value);
			}
			expect(await child.exited).toBe(0);
			expect(seen).toMatch(/✔ slow {2}check {2}ok/);
		} finally {
			await r.remove();
			await rm(scratch, { recursive: true, force: true });
		}
	});

	test("a failed job and the siblings it cancelled say so", async () => {
		const r = await makeRepo({ config: '[jobs]\nlint = "exit 3"\ntypecheck = "sleep 5"\n' });
		try {
			const run = await runDiscern(["prepare"], { cwd: r.root });
			expect(run.exitCode).toBe(1);
			expect(run.stderr).toMatch(/^✖ lint {2}check {2}failed {2}\d+\.\d\d s/m);
			expect(run.stderr).toMatch(/^! typecheck {2}check {2}cancelled {2}\d+\.\d\d s/m);
		} finally {
			await r.remove();
		}
	});

	test("--quiet (or -q) silences it; the result is unchanged", async () => {
		const loud = await runDiscern(["prepare"], { cwd: repo.root });
		for (const flag of ["--quiet", "-q"]) {
			const quiet = await runDiscern(["prepare", flag], { cwd: repo.root });
			expect(quiet.exitCode).toBe(0);
			expect(quiet.stderr).toBe("");
			expect(quiet.stdout.replace(/\d+\.\d+ s/g, "")).toBe(loud.stdout.replace(/\d+\.\d+ s/g, ""));
		}
	});
});

describe("--verbose", () => {
	test("says what was loaded and run: the config file, git calls with their time, each job command", async () => {
		const run = await runDiscern(["prepare", "--verbose"], { cwd: repo.root });
		expect(run.exitCode).toBe(0);
		const lines = run.stderr.trimEnd().split("\n");
		expect(lines[0]).toMatch(/^· discern \S+: prepare in \//);
		expect(lines).toContain(`· config ${join(repo.root, "discern.toml")} (valid)`);
		expect(lines).toContainEqual(expect.stringMatching(/^· git status .* \d+\.\d ms$/));
		// A list-valued job starts each of its commands.
		expect(lines).toContain("· lint (check) $ true");
		expect(lines).toContain("· typecheck (check) $ true");
		expect(lines).toContain("· typecheck (check) $ sleep 0.1");
		expect(lines).toContainEqual(expect.stringMatching(/^✔ lint {2}check {2}ok/));
		expect(run.stdout).not.toContain("· git");
	});

	test("a read-only verb narrates too, and a failed git call shows its exit code", async () => {
		// Without a global or system git config, `git config --get init.defaultBranch` (a trunk clue) exits 1.
		const home = await makeTempDir();
		// No trunk named by the environment (a gate running this suite sets DISCERN_TRUNK): status then asks git for init.defaultBranch, which fails.
		const env = { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1", DISCERN_TRUNK: undefined };
		const run = await runDiscern(["status", "--verbose"], { cwd: repo.root, env });
		expect(run.exitCode).toBe(0);
		expect(run.stderr).toContain(`· config ${join(repo.root, "discern.toml")} (valid)`);
		expect(run.stderr).toMatch(/^· git .* \d+\.\d ms {2}exit \d+$/m);
		const plain = await runDiscern(["status"], { cwd: repo.root, env });
		await rm(home, { recursive: true, force: true });
		expect(plain.stderr).toBe("");
		expect(run.stdout).toBe(plain.stdout);
	});

	test("--quiet wins over --verbose for narration", async () => {
		const run = await runDiscern(["prepare", "--verbose", "--quiet"], { cwd: repo.root });
		expect(run.exitCode).toBe(0);
		expect(run.stderr).toBe("");
	});

	test("--json never narrates: one document, empty stderr", async () => {
		for (const args of [
			["prepare", "--verbose"],
			["status", "--verbose"],
			["done", "--verbose"],
		]) {
			const run = await runDiscern([...args, "--json"], { cwd: repo.root });
			expect(run.stderr).toBe("");
			expect(onlyJson(run.stdout).verb).toBe(args[0]);
		}
	});
});

describe("discern mcp", () => {
	test("never narrates, even with --verbose: stderr stays empty through a gate call", async () => {
		const child = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), "mcp", "--verbose"], {
			cwd: repo.root,
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
		});
		const messages = [
			{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } },
			{ jsonrpc: "2.0", method: "notifications/initialized" },
			{ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "discern_prepare", arguments: {} } },
		];
		for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`);
		await child.stdin.flush();
		let output = "";
		const reader = child.stdout.getReader();
		while (!output.includes('"id":2')) {
			const { value, done } = await reader.read();
			if (done) break;
			output += new TextDecoder().decode(value);
		}
		reader.releaseLock();
		await child.stdin.end();
		const [stderr] = await Promise.all([new Response(child.stderr).text(), child.exited]);
		expect(output).toContain("prepare passed");
		expect(stderr).toBe("");
	});
});

describe("on a terminal", () => {
	/** Run in a pseudo-terminal (stdout and stderr both the terminal); what the terminal showed. */
	async function inTerminal(args: string): Promise<string> {
		const command = `${process.execPath} ${join(REPO_ROOT, "src/main.ts")} ${args}`;
		const child = Bun.spawn(["script", "-qec", command, "/dev/null"], {
			cwd: repo.root,
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
			env: { ...process.env, NO_COLOR: "1", CI: "" },
		});
		const [output] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		return output;
	}

	test("no per-job lines: the live progress line shows the jobs instead", async () => {
		const output = await inTerminal("prepare");
		expect(output).toContain("2/2 done");
		expect(output).not.toMatch(/lint {2}check {2}ok/);
	});

	test("--verbose lines print above the live progress line", async () => {
		const output = await inTerminal("prepare --verbose");
		expect(output).toContain("· lint (check) $ true");
		expect(output).toContain("2/2 done");
		expect(output).toContain("prepare passed");
	});

	test("--quiet hides the live progress line as well", async () => {
		const output = await inTerminal("prepare --quiet");
		expect(output).not.toContain("done\r");
		expect(output).not.toContain("⋯ lint");
		expect(output).toContain("prepare passed");
	});
});
