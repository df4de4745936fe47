import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MAX_MESSAGE_BYTES } from "../../src/mcp/stdin-limit.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { survivors } from "../helpers/processes.ts";
import { BASIC_CONFIG, makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * `discern mcp` as a real process: a stdin line over the transport's limit
 * ends the session with a diagnostic on stderr and a non-zero exit (it was
 * a silent exit 0); a line under the limit is answered as usual.
 */
let repo: TestRepo;
beforeAll(async () => {
	repo = await makeRepo({ config: BASIC_CONFIG });
});
afterAll(async () => {
	await repo.remove();
});

const INITIALIZE = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } })}\n`;

function searchCall(id: number, bytes: number): string {
	return `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "discern_docs", arguments: { search: "x".repeat(bytes) } } })}\n`;
}

function serve() {
	return Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), "mcp"], {
		cwd: repo.root,
		env: { ...process.env, DISCERN_ROOT: repo.root },
		stdin: "pipe",
		stdout: "pipe",
		stderr: "pipe",
	});
}

/** Write, ignoring a pipe the server closed on its side (that is what is under test). */
async function send(child: ReturnType<typeof serve>, text: string): Promise<void> {
	try {
		child.stdin.write(text);
		await child.stdin.flush();
	} catch {
		// EPIPE: the server stopped reading.
	}
}

async function outcome(child: ReturnType<typeof serve>) {
	const exited = await Promise.race([child.exited, Bun.sleep(10_000).then(() => "still running" as const)]);
	if (exited === "still running") child.kill("SIGKILL");
	const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
	return { exited, stdout, stderr };
}

describe("discern mcp: the stdin message limit", () => {
	test("a line over the limit: a stderr diagnostic that names the limit, exit 1", async () => {
		const child = serve();
		await send(child, INITIALIZE);
		await send(child, searchCall(2, MAX_MESSAGE_BYTES + 1024));
		const { exited, stdout, stderr } = await outcome(child);
		expect(exited).toBe(1);
		expect(stdout).toContain('"serverInfo"');
		expect(stdout).not.toContain('"id":2');
		expect(stderr).toBe(
			"discern mcp: a message from the client is larger than 10 MiB, the most one stdio message may hold (ReadBuffer exceeded maximum size of 10485760 bytes); the session is closed.\n",
		);
		expect(await survivors(repo.root)).toEqual([]);
	});

	test("a line under the limit is answered, the session goes on, and stdin's end is a clean exit 0", async () => {
		const child = serve();
		await send(child, INITIALIZE);
		await send(child, searchCall(2, MAX_MESSAGE_BYTES - 4096));
		await send(child, searchCall(3, 10));
		// Both answers first (in either order: calls run concurrently); stdin's end is tested next, not a race with the calls.
		let stdout = "";
		let ended = false;
		const decoder = new TextDecoder();
		for await (const chunk of child.stdout) {
			stdout += decoder.decode(chunk, { stream: true });
			if (!ended && stdout.includes('"id":2') && stdout.includes('"id":3')) {
				ended = true;
				await child.stdin.end();
			}
		}
		const exited = await Promise.race([child.exited, Bun.sleep(10_000).then(() => "still running" as const)]);
		expect(exited).toBe(0);
		expect(await new Response(child.stderr).text()).toBe("");
		const ids = stdout
			.trim()
			.split("\n")
			.map((line) => (JSON.parse(line) as { id?: number }).id);
		expect(ids.sort()).toEqual([1, 2, 3]);
		// The answer to the 10 MB search echoes a clipped query, not 10 MB.
		expect(stdout.length).toBeLessThan(64 * 1024);
	});
});
