import { afterEach, describe, expect, test } from "bun:test";
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { doctor } from "../../src/verbs/doctor/doctor.ts";
import { ensureBinary } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});
async function repo(options: Parameters<typeof makeRepo>[0] = {}): Promise<TestRepo> {
	const r = await makeRepo(options);
	made.push(r);
	return r;
}

function byId(checks: { id: string; state: string; detail: string }[]) {
	return Object.fromEntries(checks.map((check) => [check.id, check]));
}

describe("doctor", () => {
	test("a healthy configured repository: every check ok or warn", async () => {
		const r = await repo({
			config: '[jobs]\ntest = "git --version"\n',
			files: { ".mcp.json": '{"mcpServers":{"discern":{"command":"discern","args":["mcp"]}}}' },
		});
		const result = await doctor(r.ctx(), {});
		expect(result.ok).toBe(true);
		const checks = byId(result.data?.checks ?? []);
		expect(checks.git_version?.state).toBe("ok");
		expect(checks.repository?.state).toBe("ok");
		expect(checks.identity?.state).toBe("ok");
		expect(checks.trunk?.state).toBe("ok");
		expect(checks.config?.state).toBe("ok");
		expect(checks.test_job?.state).toBe("ok");
		expect(checks["job:test"]?.state).toBe("ok");
		expect(checks.agent_wiring?.state).toBe("ok");
	});

	test("a job whose program is not on PATH fails with a fix", async () => {
		const r = await repo({ config: '[jobs]\nlint = "FOO=1 not-a-program-qq --x"\ntest = "true"\n' });
		const result = await doctor(r.ctx(), {});
		expect(result.ok).toBe(false);
		expect(result.ok ? "" : result.error).toBe("checks_failed");
		const lint = byId(result.data?.checks ?? [])["job:lint"];
		expect(lint?.state).toBe("fail");
		expect(lint?.detail).toContain("not-a-program-qq");
	});

	test("a repository-relative script counts as found when the file exists", async () => {
		const r = await repo({ config: '[jobs]\ntest = "./scripts/check.sh"\n' });
		await mkdir(`${r.root}/scripts`);
		await writeFile(`${r.root}/scripts/check.sh`, "#!/bin/sh\n");
		await chmod(`${r.root}/scripts/check.sh`, 0o755);
		expect(byId((await doctor(r.ctx(), {})).data?.checks ?? [])["job:test"]?.state).toBe("ok");
	});

	test("no discern.toml: config is a warning, doctor still succeeds and points at setup", async () => {
		const r = await repo();
		const result = await doctor(r.ctx(), {});
		expect(result.ok).toBe(true);
		const config = byId(result.data?.checks ?? []).config as { state: string; fix?: string } | undefined;
		expect(config?.state).toBe("warn");
		expect(config?.fix).toBe("discern setup");
	});

	test("an invalid config fails the config check with the problem's line", async () => {
		const r = await repo({ config: "[gate]\n\ntimout = 1\n" });
		const result = await doctor(r.ctx(), {});
		expect(result.ok).toBe(false);
		expect(byId(result.data?.checks ?? []).config?.detail).toContain("line 3");
	});

	test("configured agents without wiring are a warning naming the file", async () => {
		const r = await repo({ config: '[project]\nagents = ["cursor"]\n[jobs]\ntest = "true"\n' });
		const wiring = byId((await doctor(r.ctx(), {})).data?.checks ?? []).agent_wiring;
		expect(wiring?.state).toBe("warn");
		expect(wiring?.detail).toContain(".cursor/mcp.json");
	});

	test("identity missing is a warning", async () => {
		const r = await repo({ config: '[jobs]\ntest = "true"\n' });
		await r.git("config", "--unset", "user.name");
		await r.git("config", "--unset", "user.email");
		// No global or system git config either: the identity is truly missing.
		const env = { PATH: process.env.PATH, HOME: r.root, XDG_CONFIG_HOME: r.root, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
		const identity = byId((await doctor(r.ctx({ env }), {})).data?.checks ?? []).identity;
		expect(identity?.state).toBe("warn");
		expect(identity?.detail).toContain("user.name and user.email");
	});

	describe("it starts each configured agent's server and completes an MCP initialize", () => {
		const mcp = (command: string, args: string[]) => JSON.stringify({ mcpServers: { discern: { command, args } } });
		const agentConfig = '[project]\nagents = ["claude_code"]\n[jobs]\ntest = "true"\n';

		test("a config naming the compiled binary: ok, with the version it answered", async () => {
			const binary = await ensureBinary();
			const version = (await Bun.file(`${import.meta.dir}/../../package.json`).json()).version as string;
			const r = await repo({ config: agentConfig, files: { ".mcp.json": mcp(binary, ["mcp"]) } });
			const check = byId((await doctor(r.ctx(), {})).data?.checks ?? [])["mcp:claude_code"] as { state: string; detail: string } | undefined;
			expect(check?.state).toBe("ok");
			expect(check?.detail).toContain(`answered \`initialize\` as discern ${version}`);
		});

		test("a command that is not there fails: the editor would fail with spawn ENOENT", async () => {
			const r = await repo({ config: agentConfig, files: { ".mcp.json": mcp("/nonexistent-qq/bin/discern", ["mcp"]) } });
			const result = await doctor(r.ctx(), {});
			expect(result.ok ? "" : result.error).toBe("checks_failed");
			const check = byId(result.data?.checks ?? [])["mcp:claude_code"] as { state: string; detail: string; fix?: string } | undefined;
			expect(check?.state).toBe("fail");
			expect(check?.detail).toContain("an editor using this config would fail with `spawn /nonexistent-qq/bin/discern");
			expect(check?.fix).toContain("discern refresh");
		});

		test("a program named discern that is not an MCP server fails (one echoes, one exits)", async () => {
			const bin = await makeTempDir("discern-fake-");
			try {
				for (const [body, words] of [
					["exec cat", "echoed the `initialize` request back"],
					["exit 0", "without answering `initialize`"],
				] as const) {
					await writeFile(join(bin, "discern"), `#!/bin/sh\n${body}\n`);
					await chmod(join(bin, "discern"), 0o755);
					const r = await repo({ config: agentConfig, files: { ".mcp.json": mcp(join(bin, "discern"), ["mcp"]) } });
					const check = byId((await doctor(r.ctx(), {})).data?.checks ?? [])["mcp:claude_code"] as { state: string; detail: string } | undefined;
					expect(check?.state).toBe("fail");
					expect(check?.detail).toContain(words);
				}
			} finally {
				await rm(bin, { recursive: true, force: true });
			}
		});

		test("a command refresh would not write (a shell, other programs) is reported and never started", async () => {
			const r = await repo({
				config: agentConfig,
				files: { ".mcp.json": JSON.stringify({ mcpServers: { discern: { command: "sh", args: ["-c", "touch PWNED; exec discern mcp", "mcp"] } } }) },
			});
			const checks = byId((await doctor(r.ctx(), {})).data?.checks ?? []) as Record<string, { state: string; detail: string; fix?: string }>;
			expect(checks["mcp:claude_code"]?.state).toBe("fail");
			expect(checks["mcp:claude_code"]?.detail).toContain("not a command refresh writes");
			expect(checks["mcp:claude_code"]?.fix).toBe("discern refresh");
			expect(checks.agent_wiring?.state).toBe("warn");
			expect(checks.agent_wiring?.detail).toContain(".mcp.json");
			expect(await Bun.file(join(r.root, "PWNED")).exists()).toBe(false);
			for (const command of ["cat", "true"]) {
				const other = await repo({ config: agentConfig, files: { ".mcp.json": mcp(command, []) } });
				const check = byId((await doctor(other.ctx(), {})).data?.checks ?? [])["mcp:claude_code"] as { state: string; detail: string } | undefined;
				expect(check?.state).toBe("fail");
				expect(check?.detail).toContain("not started");
			}
		});

		test("a discern entry with keys refresh does not write (env, cwd) is tampered: reported and never started", async () => {
			const bin = await makeTempDir();
			try {
				await writeFile(join(bin, "discern"), `#!/bin/sh\ntouch "${join(bin, "PWNED")}"\n`);
				await chmod(join(bin, "discern"), 0o755);
				const entry = { command: join(bin, "discern"), args: ["mcp"], env: { DISCERN_TRUNK: "agent/evil", PATH: "./tools:/usr/bin" }, cwd: "/tmp" };
				const r = await repo({ config: agentConfig, files: { ".mcp.json": JSON.stringify({ mcpServers: { discern: entry } }) } });
				const checks = byId((await doctor(r.ctx(), {})).data?.checks ?? []) as Record<string, { state: string; detail: string; fix?: string }>;
				expect(checks["mcp:claude_code"]?.state).toBe("fail");
				expect(checks["mcp:claude_code"]?.detail).toContain("keys of its own: env, cwd");
				expect(checks["mcp:claude_code"]?.detail).toContain("not started");
				expect(checks["mcp:claude_code"]?.fix).toBe("discern refresh");
				expect(await Bun.file(join(bin, "PWNED")).exists()).toBe(false);
			} finally {
				await rm(bin, { recursive: true, force: true });
			}
		});

		test("agents naming the same command share one start; a missing entry is a warning pointing at refresh", async () => {
			const binary = await ensureBinary();
			const r = await repo({
				config: '[project]\nagents = ["claude_code", "cursor", "gemini"]\n[jobs]\ntest = "true"\n',
				files: { ".mcp.json": mcp(binary, ["mcp"]), ".cursor/mcp.json": mcp(binary, ["mcp"]) },
			});
			const checks = byId((await doctor(r.ctx(), {})).data?.checks ?? []) as Record<string, { state: string; detail: string; fix?: string }>;
			expect(checks["mcp:claude_code"]?.state).toBe("ok");
			expect(checks["mcp:cursor"]?.state).toBe("ok");
			expect(checks["mcp:gemini"]?.state).toBe("warn");
			expect(checks["mcp:gemini"]?.detail).toContain(".gemini/settings.json does not exist");
			expect(checks["mcp:gemini"]?.fix).toBe("discern refresh");
		});
	});
});
