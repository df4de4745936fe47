/**
 * Probes: ways of timing a process. Each measures with `performance.now()`
 * from just before `Bun.spawn` to the moment that matters (exit, first
 * output, an awaited response line) and discards output it does not need.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { type Phases, type Probe, WHOLE } from "./measure.ts";

/** Long enough for a loaded machine, short enough that a hung server fails the run. */
const ANSWER_TIMEOUT_MS = 10_000;

interface SpawnPlace {
	cwd?: string;
}

/** Spawn to exit, output discarded. A non-zero exit fails the run: we would be timing an error path. */
export function timeToExit(label: string, cmd: readonly string[], place: SpawnPlace = {}): Probe {
	return {
		label,
		run: async () => {
			const start = performance.now();
			const proc = Bun.spawn([...cmd], { ...place, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
			const code = await proc.exited;
			const elapsed = performance.now() - start;
			if (code !== 0) throw new Error(`\`${cmd.join(" ")}\` exited with ${code}`);
			return { [WHOLE]: elapsed };
		},
	};
}

/** The same, in a folder made on first use (untimed): a fixture built only when its benchmark is selected. */
export function timeToExitIn(label: string, cmd: readonly string[], cwd: () => Promise<string>): Probe {
	return {
		label,
		run: async () => timeToExit(label, cmd, { cwd: await cwd() }).run(),
	};
}

/**
 * Spawn to the first bytes on stdout, reported as `phase` so it pairs with a
 * candidate's phase of that name (the floor under any server's first answer).
 */
export function timeToFirstOutput(label: string, cmd: readonly string[], phase: string): Probe {
	return {
		label,
		run: async () => {
			const start = performance.now();
			const proc = Bun.spawn([...cmd], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
			const reader = proc.stdout.getReader();
			const first = await reader.read();
			const elapsed = performance.now() - start;
			if (first.done) throw new Error(`\`${cmd.join(" ")}\` printed nothing`);
			// Drain so the child never blocks on a full pipe before exiting.
			while (!(await reader.read()).done) {}
			await proc.exited;
			return { [phase]: elapsed };
		},
	};
}

/**
 * One MCP session over stdio, as an editor starts it: `initialize` written
 * right after spawn, then `notifications/initialized` and `tools/list`,
 * then stdin closed. Phases: `initialize` (from spawn), `tools/list` (from
 * writing the request), `exit` (from closing stdin; a server that outlives
 * its client fails the run).
 */
export function mcpSession(label: string, cmd: readonly string[], place: SpawnPlace = {}): Probe {
	return { label, run: async () => (await runMcpSession(cmd, place)).phases };
}

/**
 * The size of the `tools/list` answer (its `result`, as JSON): what every
 * agent loads into its context before its first call. Phase `bytes`.
 */
export function toolsListSize(label: string, cmd: readonly string[], place: SpawnPlace = {}): Probe {
	return {
		label,
		run: async () => {
			const { listBytes, toolCount } = await runMcpSession(cmd, place);
			return { bytes: listBytes, "bytes per tool": Math.round(listBytes / toolCount) };
		},
	};
}

async function runMcpSession(cmd: readonly string[], place: SpawnPlace): Promise<{ phases: Phases; listBytes: number; toolCount: number }> {
	const start = performance.now();
	const proc = Bun.spawn([...cmd], { ...place, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
	try {
		const lines = jsonRpcReader(proc.stdout);
		const send = (message: object): void => {
			proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
			proc.stdin.flush();
		};

		send({
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
		});
		const initialized = await lines.response(1);
		const initialize = performance.now() - start;
		if (!isObject(initialized.result)) throw new Error(`initialize failed: ${JSON.stringify(initialized.error)}`);

		send({ method: "notifications/initialized" });
		const listStart = performance.now();
		send({ id: 2, method: "tools/list", params: {} });
		const listed = await lines.response(2);
		const toolsList = performance.now() - listStart;
		const tools = isObject(listed.result) ? listed.result.tools : undefined;
		if (!Array.isArray(tools) || tools.length === 0) throw new Error(`tools/list returned no tools: ${JSON.stringify(listed)}`);

		const closeStart = performance.now();
		await proc.stdin.end();
		const code = await within(proc.exited, ANSWER_TIMEOUT_MS, "the server to exit after stdin closed");
		const exit = performance.now() - closeStart;
		if (code !== 0) throw new Error(`\`${cmd.join(" ")}\` exited with ${code}`);
		const phases: Phases = { initialize, "tools/list": toolsList, exit };
		return { phases, listBytes: Buffer.byteLength(JSON.stringify(listed.result)), toolCount: tools.length };
	} finally {
		if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
	}
}

/** How long the server sits idle after the handshake before the timed call: far less than an agent leaves it. */
const AGENT_IDLE_MS = 200;

/**
 * `discern_done` over MCP, the way an agent calls the gate: the server is
 * started and initialized untimed, left idle a moment (an agent's first
 * call comes a while after the handshake), the previous Proof removed
 * untimed, and the call timed from writing the request to its response.
 * What a running server does not pay again (Bun's start, loading the
 * code) is left out, as it is for the agent.
 */

export function mcpGateCall(label: string, discern: string, repo: string): Probe {
	return {
		label,
		run: async () => {
			const proc = Bun.spawn([discern, "mcp"], { cwd: repo, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
			try {
				const lines = jsonRpcReader(proc.stdout);
				const send = (message: object): void => {
					proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
					proc.stdin.flush();
				};
				send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } } });
				await lines.response(1);
				send({ method: "notifications/initialized" });
				await rm(join(repo, ".git", "discern", "proof.json"), { force: true });
				await Bun.sleep(AGENT_IDLE_MS);
				const start = performance.now();
				send({ id: 2, method: "tools/call", params: { name: "discern_done", arguments: {} } });
				const answered = await lines.response(2);
				const elapsed = performance.now() - start;
				const content = isObject(answered.result) ? answered.result.structuredContent : undefined;
				if (!isObject(content) || content.ok !== true) throw new Error(`discern_done did not pass: ${JSON.stringify(answered).slice(0, 400)}`);
				await proc.stdin.end();
				await within(proc.exited, ANSWER_TIMEOUT_MS, "the server to exit after stdin closed");
				return { [WHOLE]: elapsed };
			} finally {
				if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
			}
		},
	};
}

type JsonRpcMessage = { id?: unknown; result?: unknown; error?: unknown };

/** Newline-delimited JSON-RPC from a child's stdout; skips notifications and anything not for the awaited id. */
function jsonRpcReader(stream: ReadableStream<Uint8Array>): { response: (id: number) => Promise<JsonRpcMessage> } {
	const reader = stream.getReader();
	const decoder = new TextDecoder();
	let buffer = "";

	const nextLine = async (): Promise<string | undefined> => {
		for (;;) {
			const newline = buffer.indexOf("\n");
			if (newline >= 0) {
				const line = buffer.slice(0, newline);
				buffer = buffer.slice(newline + 1);
				if (line.trim() !== "") return line;
				continue;
			}
			const chunk = await reader.read();
			if (chunk.done) return undefined;
			buffer += decoder.decode(chunk.value, { stream: true });
		}
	};

	return {
		response: async (id) => {
			const deadline = performance.now() + ANSWER_TIMEOUT_MS;
			for (;;) {
				const line = await within(nextLine(), deadline - performance.now(), `a response to request ${id}`);
				if (line === undefined) throw new Error(`stdout closed before the response to request ${id}`);
				const message: unknown = JSON.parse(line);
				if (isObject(message) && message.id === id) return message;
			}
		},
	};
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`timed out after ${ANSWER_TIMEOUT_MS} ms waiting for ${what}`)), Math.max(ms, 0));
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}
