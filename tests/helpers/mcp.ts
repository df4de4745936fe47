import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createServer, type ServerOptions } from "../../src/mcp/server.ts";

/** The real SDK client connected in-process to a fresh discern server rooted at `root`. */
export async function connectInMemory(
	root: string,
	options: Partial<Omit<ServerOptions, "root">> = {},
): Promise<{ client: Client; close: () => Promise<void> }> {
	const server = createServer({ root, env: { PATH: process.env.PATH }, ...options });
	const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
	const client = new Client({ name: "discern-tests", version: "0" });
	await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
	return {
		client,
		close: async () => {
			await client.close();
			await server.close();
		},
	};
}
