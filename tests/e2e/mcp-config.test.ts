import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ensureBinary } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * What `refresh` writes is accepted by a real MCP client: the compiled binary
 * refreshes a repository where `discern` is not on PATH (so it writes its own
 * absolute path), then the SDK's stdio client starts exactly the command and
 * args the generated config names, and lists the tools.
 */
let repo: TestRepo;
let binary: string;
// No discern here: git and sh only.
const ENV = { PATH: "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" };

async function run(args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
	const child = Bun.spawn([binary, ...args], { cwd: repo.root, env: ENV, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { exitCode, stdout, stderr };
}

beforeAll(async () => {
	binary = await ensureBinary();
	repo = await makeRepo({ config: '[project]\nagents = ["claude_code", "copilot"]\n[jobs]\ntest = "true"\n' });
}, 120_000);
afterAll(async () => {
	await repo.remove();
});

describe("the generated MCP config starts a server a real client accepts (dist/discern)", () => {
	test("refresh writes the binary's absolute path; the SDK client starts it and lists tools", async () => {
		const refreshed = await run(["refresh", "--json"]);
		expect(refreshed.exitCode).toBe(0);
		const envelope = JSON.parse(refreshed.stdout) as { data: { command: { command: string; args: string[]; why: string } } };
		expect(envelope.data.command.command).toBe(binary);
		expect(envelope.data.command.why).toContain("not on PATH");

		for (const [file, container] of [
			[".mcp.json", "mcpServers"],
			[".vscode/mcp.json", "servers"],
		] as const) {
			const config = JSON.parse(await readFile(join(repo.root, file), "utf8")) as Record<string, { discern: { command: string; args: string[] } }>;
			const entry = config[container]?.discern;
			expect(entry?.command).toBe(binary);
			const transport = new StdioClientTransport({ command: entry?.command ?? "", args: entry?.args ?? [], cwd: repo.root, env: ENV, stderr: "pipe" });
			const client = new Client({ name: "config-check", version: "0" });
			await client.connect(transport);
			try {
				expect(client.getServerVersion()?.name).toBe("discern");
				const { tools } = await client.listTools();
				expect(tools.map((tool) => tool.name)).toContain("discern_status");
			} finally {
				await client.close();
			}
		}
	});

	test("doctor, run the same way, proves each configured agent's server starts", async () => {
		const doctor = await run(["doctor", "--json"]);
		const checks = (JSON.parse(doctor.stdout) as { data: { checks: { id: string; state: string; detail: string }[] } }).data.checks;
		const servers = checks.filter((check) => check.id.startsWith("mcp:"));
		expect(servers.map((check) => [check.id, check.state])).toEqual([
			["mcp:claude_code", "ok"],
			["mcp:copilot", "ok"],
		]);
		expect(servers[0]?.detail).toContain("answered `initialize` as discern");
	});
});
