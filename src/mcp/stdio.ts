import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { EXIT, type ExitCode } from "../contract/exit-codes.ts";
import { createServer } from "./server.ts";

/**
 * `discern mcp`: the server over stdio. stdout carries only protocol; logs
 * go to stderr. The SDK's transport does not end on stdin EOF by itself,
 * so we do: an editor closing the pipe must not leave a process behind.
 */
export async function serveStdio(options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): Promise<ExitCode> {
	const server = createServer({ root: options.cwd, env: options.env });
	const transport = new StdioServerTransport();
	const closed = new Promise<void>((resolve) => {
		process.stdin.once("end", resolve);
		process.stdin.once("close", resolve);
		server.onclose = () => resolve();
	});
	await server.connect(transport);
	await closed;
	await server.close().catch(() => undefined);
	// Nothing else may keep the process alive once the client is gone.
	process.exit(EXIT.ok);
}
