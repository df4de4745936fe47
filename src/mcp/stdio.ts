import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { DEFAULT_GRACE_MS } from "../gate/runner.ts";
import { EXIT, type ExitCode, isEndingSignal, signalExit } from "../contract/exit-codes.ts";
import { createServer, settleCalls } from "./server.ts";
import { toolEntries } from "./tools.ts";

/**
 * `discern mcp`: the server over stdio. stdout carries only protocol; logs
 * go to stderr. It stops when stdin closes (the SDK's transport does not
 * notice by itself) or on any signal that would end it (HUP, INT, TERM, …:
 * see ENDING_SIGNALS); either way every call in flight is cancelled and its
 * job trees killed before the process exits (128+n after a signal), so an
 * editor closing the pipe or its terminal never leaves a test run behind.
 */
export async function serveStdio(options: { cwd: string; env: Readonly<Record<string, string | undefined>>; signal: AbortSignal }): Promise<ExitCode> {
	const shutdown = new AbortController();
	const server = createServer({ root: options.cwd, env: options.env, shutdown: shutdown.signal });
	const transport = new StdioServerTransport();
	const stopped = new Promise<"eof" | "signal">((resolve) => {
		process.stdin.once("end", () => resolve("eof"));
		process.stdin.once("close", () => resolve("eof"));
		server.onclose = () => resolve("eof");
		options.signal.addEventListener("abort", () => resolve("signal"), { once: true });
	});
	await server.connect(transport);
	// Build the tool listings (JSON Schema conversion) now, while the client's `initialize` is on its way:
	// `tools/list` is the call agents wait on.
	toolEntries();
	const why = await stopped;
	shutdown.abort(why);
	// Killing a tree takes at most the grace period; leave room for the verb to return.
	await settleCalls(server, DEFAULT_GRACE_MS + 3000);
	await server.close().catch(() => undefined);
	const reason: unknown = options.signal.reason;
	const code = why === "eof" ? EXIT.ok : signalExit(isEndingSignal(reason) ? reason : "SIGTERM");
	// Nothing else may keep the process alive once the client is gone.
	process.exit(code);
}
