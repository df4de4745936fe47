import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ensureBinary } from "../helpers/cli.ts";
import { processesWithEnv, survivors, survivorsByCommandLine, TAG } from "../helpers/processes.ts";
import { BASIC_CONFIG, makeRepo, type TestRepo } from "../helpers/repo.ts";

/** The compiled binary, driven over stdio by the real SDK client, as an editor would. */
let repo: TestRepo;
let binary: string;
beforeAll(async () => {
	binary = await ensureBinary();
	repo = await makeRepo({ config: BASIC_CONFIG });
}, 120_000);
afterAll(async () => {
	await repo.remove();
});

describe("discern mcp over stdio (dist/discern)", () => {
	test("initialize, list, call valid/invalid/unknown, read a resource", async () => {
		const transport = new StdioClientTransport({ command: binary, args: ["mcp"], cwd: repo.root, stderr: "pipe" });
		const client = new Client({ name: "e2e", version: "0" });
		await client.connect(transport);
		try {
			expect(client.getServerVersion()?.name).toBe("discern");
			const { tools } = await client.listTools();
			expect(tools.map((tool) => tool.name)).toContain("discern_status");

			const status = (await client.callTool({ name: "discern_status", arguments: {} })) as unknown as {
				structuredContent: { ok: boolean; data: { root: string } };
			};
			expect(status.structuredContent.ok).toBe(true);
			expect(status.structuredContent.data.root).toBe(repo.root);

			const invalid = (await client.callTool({ name: "discern_docs", arguments: { target: 5 } })) as unknown as {
				isError: boolean;
				structuredContent: { error: string };
			};
			expect(invalid.isError).toBe(true);
			expect(invalid.structuredContent.error).toBe("invalid_arguments");

			await expect(client.callTool({ name: "discern_unknown", arguments: {} })).rejects.toThrow();

			const { contents } = await client.readResource({ uri: "discern://docs/envelope" });
			expect(contents[0]?.mimeType).toBe("text/markdown");
			expect((contents[0] as { text: string }).text).toStartWith("# ");
		} finally {
			await client.close();
		}
	});

	test("exits by itself when stdin closes", async () => {
		const child = Bun.spawn([binary, "mcp"], { cwd: repo.root, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
		child.stdin.write(
			`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } })}\n`,
		);
		await child.stdin.flush();
		const reader = child.stdout.getReader();
		const { value } = await reader.read();
		expect(new TextDecoder().decode(value)).toContain('"serverInfo"');
		reader.releaseLock();
		await child.stdin.end();
		const exited = await Promise.race([child.exited, Bun.sleep(5000).then(() => "timeout" as const)]);
		expect(exited).toBe(0);
	});

	test("stdout carries only protocol: every line is JSON-RPC", async () => {
		const child = Bun.spawn([binary, "mcp"], { cwd: repo.root, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
		const messages = [
			{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } },
			{ jsonrpc: "2.0", method: "notifications/initialized" },
			{ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "discern_doctor", arguments: {} } },
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
		await child.exited;
		for (const line of output.trim().split("\n")) expect(JSON.parse(line).jsonrpc).toBe("2.0");
	});

	async function startLongCall(root: string): Promise<ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>> {
		const child = Bun.spawn([binary, "mcp"], { cwd: root, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
		const messages = [
			{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } },
			{ jsonrpc: "2.0", method: "notifications/initialized" },
			{ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "discern_done", arguments: {} } },
		];
		for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`);
		await child.stdin.flush();
		const deadline = Date.now() + 10_000;
		while ((await processesWithEnv("DISCERN_ROOT", root)).length < 2 && Date.now() < deadline) await Bun.sleep(50);
		return child;
	}

	// Each case leaves an orphan with a cleared environment too, found afterwards by its command line.
	for (const [how, expected, marker] of [
		["stdin closes", 0, `1234.${TAG}941`],
		["SIGTERM", 143, `1234.${TAG}942`],
		["SIGHUP", 129, `1234.${TAG}943`],
		["SIGUSR2", 140, `1234.${TAG}944`],
	] as const) {
		test(`when ${how} mid-call, the server kills the call's job trees before it exits (${expected})`, async () => {
			const hanging = await makeRepo({
				config: `[jobs]\ntest = "trap '' TERM; sleep 60"\nlint = "(setsid sleep 61 >/dev/null 2>&1 &); (setsid env -i sleep ${marker} &); sleep 60"\n`,
			});
			try {
				const child = await startLongCall(hanging.root);
				if (how === "stdin closes") await child.stdin.end();
				else child.kill(how);
				const exitCode = await Promise.race([child.exited, Bun.sleep(15_000).then(() => "timeout" as const)]);
				expect(exitCode).toBe(expected);
				expect(await survivors(hanging.root)).toEqual([]);
				expect(await survivorsByCommandLine(`sleep ${marker}`)).toEqual([]);
			} finally {
				await hanging.remove();
			}
		});
	}

	// The client that closed stdin (or the signal) still reads stdout until the server exits: the call it made is answered.
	for (const how of ["stdin closes", "SIGTERM"] as const) {
		test(`when ${how} mid-call, the call in flight is answered (interrupted) before the server exits`, async () => {
			const hanging = await makeRepo({ config: `[jobs]\ntest = "sleep 1234.${TAG}945"\n` });
			try {
				const child = await startLongCall(hanging.root);
				if (how === "stdin closes") await child.stdin.end();
				else child.kill(how);
				const output = await new Response(child.stdout).text();
				await child.exited;
				const answer = output
					.trim()
					.split("\n")
					.map((line) => JSON.parse(line) as { id?: number; result?: { structuredContent?: { data?: { interrupted?: boolean } } } })
					.find((message) => message.id === 2);
				expect(answer?.result?.structuredContent?.data?.interrupted).toBe(true);
			} finally {
				await hanging.remove();
			}
		});
	}
});

describe("discern mcp when the client stops reading", () => {
	test("a closed stdout cancels the calls in flight: their job trees are killed and the server ends", async () => {
		const marker = `4242.${process.pid}${Date.now() % 1000}`;
		const hanging = await makeRepo({ config: `[jobs]\ntest = "sleep ${marker}"\n` });
		const feeder = `${marker}1`;
		try {
			const lines = [
				{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } },
				{ jsonrpc: "2.0", method: "notifications/initialized" },
				{ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "discern_test", arguments: {}, _meta: { progressToken: 7 } } },
			]
				.map((line) => JSON.stringify(line))
				.join("\n");
			// stdin stays open (the client is alive); its reading end of stdout goes away after 2 s, unread,
			// so the next notification (the heartbeat) finds no reader.
			const script = `(printf '%s\\n' "$1"; sleep ${feeder}) | "$0" mcp | sleep 2`;
			const child = Bun.spawn(["sh", "-c", script, binary, lines], { cwd: hanging.root, stdout: "ignore", stderr: "ignore" });
			// Wait until the server has started the job, then give it a few seconds to notice its reader is gone.
			let started = false;
			for (let waited = 0; waited < 10_000 && !started; waited += 100) {
				await Bun.sleep(100);
				started = (await survivorsByCommandLine(`sleep ${marker}`, 0)).length > 0;
			}
			let stuckServer = await survivorsByCommandLine(`${binary} mcp`, 0);
			for (let waited = 0; waited < 12_000 && stuckServer.length > 0; waited += 100) {
				await Bun.sleep(100);
				stuckServer = await survivorsByCommandLine(`${binary} mcp`, 0);
			}
			for (const pid of [...stuckServer, ...(await survivorsByCommandLine(`sleep ${feeder}`, 0))]) process.kill(pid, "SIGKILL");
			child.kill("SIGKILL");
			expect(started).toBe(true);
			expect(stuckServer).toEqual([]);
			expect(await survivorsByCommandLine(`sleep ${marker}`)).toEqual([]);
		} finally {
			await hanging.remove();
		}
	}, 30_000);
});
