import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { EXIT, type ExitCode, isEndingSignal, signalExit } from "../contract/exit-codes.ts";
import { standardErr, standardOut } from "../platform/streams.ts";
import { screenLines } from "./screen.ts";
import { createServer } from "./server.ts";
import { brokenTransportLine, MAX_MESSAGE_BYTES } from "./stdin-limit.ts";
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
	const { server, cleanup } = createServer({ root: options.cwd, env: options.env });
	// Broken lines are answered before the SDK's reader, which would drop them without a word; both hold lines to one limit.
	const transport: StdioServerTransport = new StdioServerTransport(
		screenLines(process.stdin, (reply) => void transport.send(reply), MAX_MESSAGE_BYTES),
		standardOut(),
		{ maxBufferSize: MAX_MESSAGE_BYTES },
	);
	let transportError: Error | undefined;
	server.onerror = (error) => {
		transportError = error;
	};
	const stopped = new Promise<"eof" | "signal" | "broken">((resolve) => {
		process.stdin.once("end", () => resolve("eof"));
		// The client stopped reading: its answers have nowhere to go, so every call is cancelled as on stdin's end.
		standardOut().once("error", (error: NodeJS.ErrnoException) => {
			transportError ??= error;
			resolve(error.code === "EPIPE" || error.code === "ECONNRESET" ? "eof" : "broken");
		});
		process.stdin.once("close", () => resolve("eof"));
		// Closed by the transport itself while stdin is open: an oversized message (see stdin-limit.ts).
		server.onclose = () => resolve("broken");
		options.signal.addEventListener("abort", () => resolve("signal"), { once: true });
	});
	await server.connect(transport);
	// Build the tool listings (JSON Schema conversion) now, while the client's `initialize` is on its way:
	// `tools/list` is the call agents wait on.
	toolEntries();
	const why = await stopped;
	// Every call in flight is cancelled and its job trees killed before the server closes.
	await cleanup(why);
	await server.close().catch(() => undefined);
	if (why === "broken") standardErr().write(brokenTransportLine(transportError));
	const reason: unknown = options.signal.reason;
	const code = why === "eof" ? EXIT.ok : why === "broken" ? EXIT.failure : signalExit(isEndingSignal(reason) ? reason : "SIGTERM");
	// Nothing else may keep the process alive once the client is gone.
	process.exit(code);
}
