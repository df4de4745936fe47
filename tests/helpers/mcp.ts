import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createServer, type ServerOptions } from "../../src/mcp/server.ts";

/**
 * The real SDK client connected in-process to a fresh discern server rooted at `root`.
 * Aborting `shutdown` cleans the server up as `discern mcp` does when its client goes away.
 */
export async function connectInMemory(
	root: string,
	{ shutdown, ...options }: Partial<Omit<ServerOptions, "root">> & { shutdown?: AbortSignal } = {},
): Promise<{ client: Client; close: () => Promise<void> }> {
	const { server, cleanup } = createServer({ root, env: { PATH: process.env.PATH }, ...options });
	shutdown?.addEventListener("abort", () => void cleanup(shutdown.reason), { once: true });
	const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
	const client = new Client({ name: "discern-tests", version: "0" });
	await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
	return {
		client,
		close: async () => {
			await cleanup("closed");
			await client.close();
			await server.close();
		},
	};
}
