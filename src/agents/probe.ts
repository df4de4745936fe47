import { access, constants, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { findExecutable } from "../platform/process.ts";

/**
 * Does an MCP config's server entry start a server an editor can talk to?
 * Started the way an editor starts it (the command, its args, the project
 * root as cwd, no shell), sent the JSON-RPC `initialize` request, read until
 * the answer, then its stdin is closed. Whatever it left running is killed
 * with its process group. No SDK here: `discern mcp` is the only place that
 * loads it.
 */
export type ProbeResult =
	| { ok: true; name: string; version: string; protocol: string; program: string; exited: boolean }
	| { ok: false; reason: "not_found" | "not_started" | "exited" | "timeout" | "not_mcp"; detail: string; program: string | null };

export interface ProbeOptions {
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	/** How long the server has to answer `initialize`. */
	timeoutMs?: number;
	/** How long it has to exit once its stdin is closed, before its group is killed. */
	exitMs?: number;
}

/** A protocol revision every current server speaks; a server that prefers another answers with its own. */
const PROTOCOL_VERSION = "2025-06-18";
const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_EXIT_MS = 2000;
/** stdout kept for a failure's detail, and the most read before giving up on a line. */
const MAX_LINE = 1024 * 1024;

export function initializeRequest(clientVersion: string): string {
	return JSON.stringify({
		jsonrpc: "2.0",
		id: 1,
		method: "initialize",
		params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "discern-doctor", version: clientVersion } },
	});
}

/** The file a command names, as an editor would find it: an absolute path, a path from the project root, or a name on PATH. */
export async function resolveProgram(command: string, cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
	if (command.trim() === "") return null;
	if (!command.includes("/")) return findExecutable(command, env);
	const path = isAbsolute(command) ? command : join(cwd, command);
	const found = await stat(path).catch(() => null);
	if (!found?.isFile()) return null;
	return (await access(path, constants.X_OK).then(
		() => true,
		() => false,
	))
		? path
		: null;
}

export async function probeServer(command: string, args: readonly string[], options: ProbeOptions & { clientVersion: string }): Promise<ProbeResult> {
	const program = await resolveProgram(command, options.cwd, options.env);
	if (program === null) {
		const where = command.includes("/") ? `\`${command}\` does not exist or is not executable` : `\`${command}\` is not on PATH`;
		return { ok: false, reason: "not_found", detail: `${where}: an editor using this config would fail with \`spawn ${command} ENOENT\``, program: null };
	}
	let child: Bun.Subprocess<"pipe", "pipe", "pipe">;
	try {
		child = Bun.spawn([program, ...args], {
			cwd: options.cwd,
			env: definedEnv(options.env),
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
			// setsid(): the server leads its own process group, so whatever it starts can be killed with it.
			detached: true,
		});
	} catch (error) {
		return {
			ok: false,
			reason: "not_started",
			detail: `\`${program}\` could not be started: ${error instanceof Error ? error.message : String(error)}`,
			program,
		};
	}
	const request = initializeRequest(options.clientVersion);
	const stderr = collect(child.stderr);
	const exited = child.exited;
	try {
		child.stdin.write(`${request}\n`);
		child.stdin.flush();
	} catch {
		// It exited before reading: the answer below says so.
	}
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const reading = readAnswer(child.stdout, request);
	let answer = await race([reading, exited.then((code): Answer => ({ kind: "exited", code }))], timeoutMs, { kind: "timeout" });
	// It exited: what it wrote before is still in the pipe, and may be the answer.
	if (answer.kind === "exited") {
		const late = await race([reading], 500, { kind: "eof" });
		if (late.kind !== "eof") answer = late;
	} else if (answer.kind === "eof") {
		// stdout closed: it is most likely exiting; its code says more than the closed pipe.
		const code = await race([exited], 500, null);
		if (code !== null) answer = { kind: "exited", code };
	}
	try {
		child.stdin.end();
	} catch {
		// Already closed.
	}
	const exitMs = options.exitMs ?? DEFAULT_EXIT_MS;
	const ended = await race([exited.then(() => true)], exitMs, false);
	killGroup(child.pid);
	if (!ended) await exited;
	// A process that left the group (a daemon) may still hold stderr open: do not wait on it.
	const shown = program === command ? `\`${command}\`` : `\`${command}\` (${program})`;
	const said = tail(await race([stderr], 200, ""));
	const stderrNote = said ? `; it said: ${said}` : "";
	switch (answer.kind) {
		case "answer":
			return { ok: true, name: answer.name, version: answer.version, protocol: answer.protocol, program, exited: ended };
		case "exited":
			return { ok: false, reason: "exited", detail: `${shown} exited (code ${answer.code}) without answering \`initialize\`${stderrNote}`, program };
		case "eof":
			return { ok: false, reason: "exited", detail: `${shown} closed its stdout without answering \`initialize\`${stderrNote}`, program };
		case "timeout":
			return {
				ok: false,
				reason: "timeout",
				detail: `${shown} did not answer \`initialize\` within ${Math.round(timeoutMs / 100) / 10}s${stderrNote}`,
				program,
			};
		case "not_mcp":
			return { ok: false, reason: "not_mcp", detail: `${shown} is not an MCP server: ${answer.why}${stderrNote}`, program };
	}
}

type Answer =
	| { kind: "answer"; name: string; version: string; protocol: string }
	| { kind: "exited"; code: number }
	| { kind: "eof" }
	| { kind: "timeout" }
	| { kind: "not_mcp"; why: string };

/** Read stdout line by line until the response to request id 1 (notifications before it are allowed). */
async function readAnswer(stdout: ReadableStream<Uint8Array>, request: string): Promise<Answer> {
	const decoder = new TextDecoder();
	let buffer = "";
	for await (const chunk of stdout) {
		buffer += decoder.decode(chunk, { stream: true });
		let newline = buffer.indexOf("\n");
		while (newline >= 0) {
			const line = buffer.slice(0, newline).replace(/\r$/, "");
			buffer = buffer.slice(newline + 1);
			newline = buffer.indexOf("\n");
			if (line.trim() === "") continue;
			const judged = judgeLine(line, request);
			if (judged) return judged;
		}
		if (buffer.length > MAX_LINE) return { kind: "not_mcp", why: "it wrote more than 1 MiB to stdout without a line break" };
	}
	const last = buffer.trim() === "" ? null : judgeLine(buffer.replace(/\r$/, ""), request);
	return last ?? { kind: "eof" };
}

function judgeLine(line: string, request: string): Answer | null {
	if (line === request) return { kind: "not_mcp", why: "it echoed the `initialize` request back" };
	let message: unknown;
	try {
		message = JSON.parse(line);
	} catch {
		return { kind: "not_mcp", why: `it wrote \`${clipLine(line)}\` to stdout, which is not JSON-RPC (an MCP server writes only protocol there)` };
	}
	if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
		return { kind: "not_mcp", why: `it wrote \`${clipLine(line)}\` to stdout, which is not JSON-RPC` };
	}
	const reply = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
	// A notification or a request of its own (logging, ping) may come first.
	if (reply.id !== 1 || reply.method !== undefined) return null;
	if (reply.error !== undefined) {
		const text = (reply.error as { message?: unknown } | null)?.message;
		return { kind: "not_mcp", why: `it refused \`initialize\`: ${typeof text === "string" ? clipLine(text) : clipLine(JSON.stringify(reply.error))}` };
	}
	const result = reply.result as { serverInfo?: { name?: unknown; version?: unknown }; protocolVersion?: unknown } | undefined;
	const info = result?.serverInfo;
	if (typeof info?.name !== "string" || typeof result?.protocolVersion !== "string")
		return { kind: "not_mcp", why: "its answer to `initialize` lacks serverInfo or protocolVersion" };
	return { kind: "answer", name: info.name, version: typeof info.version === "string" ? info.version : "?", protocol: result.protocolVersion };
}

/** The first of `promises` to settle, or `fallback` after `ms` (the timer cleared either way, so it keeps nothing alive). */
async function race<T>(promises: readonly Promise<T>[], ms: number, fallback: T): Promise<T> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<T>((resolve) => {
		timer = setTimeout(() => resolve(fallback), ms);
	});
	try {
		return await Promise.race([...promises, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
	const decoder = new TextDecoder();
	let text = "";
	for await (const chunk of stream) {
		if (text.length < 64 * 1024) text += decoder.decode(chunk, { stream: true });
	}
	return text;
}

/** The last non-empty line of stderr, short. */
function tail(text: string): string {
	const last =
		text
			.split("\n")
			.map((line) => line.trim())
			.filter((line) => line !== "")
			.at(-1) ?? "";
	return clipLine(last);
}

function clipLine(text: string): string {
	const plain = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
	return plain.length > 160 ? `${plain.slice(0, 159)}…` : plain;
}

/** KILL what is still in the server's process group (it led it: setsid). Gone already: nothing to do. */
function killGroup(leader: number): void {
	try {
		process.kill(-leader, "SIGKILL");
	} catch {
		// ESRCH: the group is empty.
	}
}

function definedEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
	return out;
}
