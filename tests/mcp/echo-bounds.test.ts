import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectInMemory } from "../helpers/mcp.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * An agent's megabytes do not come back as megabytes: a 3 MB `path` once
 * produced a 40 MB response (the path in the message, hints and text, each
 * JSON-escaped), which ends the client's session. Through the real SDK
 * client, for every tool and every argument it advertises.
 */
let repo: TestRepo;
let client: Client;
let close: () => Promise<void>;
beforeAll(async () => {
	repo = await makeRepo({ config: '[jobs]\ntest = "true"\n\n[scopes.web]\npaths = ["web/**"]\n' });
	({ client, close } = await connectInMemory(repo.root));
});
afterAll(async () => {
	await close();
	await repo.remove();
});

const THREE_MB = "x".repeat(3 * 1024 * 1024);
/** A whole response: one envelope with a clipped value or two, and its text twin. */
const SMALL = 8 * 1024;
const SENTENCE = 1000;

type ToolResult = { structuredContent?: { message?: string; hints?: string[] }; content?: unknown[]; isError?: boolean };

async function sized(name: string, args: Record<string, unknown>): Promise<{ size: number; result: ToolResult }> {
	const result = (await client.callTool({ name, arguments: args })) as ToolResult;
	return { size: JSON.stringify(result).length, result };
}

function expectSmall(what: unknown, { size, result }: { size: number; result: ToolResult }): void {
	const message = result.structuredContent?.message ?? "";
	const hints = result.structuredContent?.hints ?? [];
	expect({ what, size: size < SMALL, message: message.length <= SENTENCE, hints: hints.every((hint) => hint.length <= SENTENCE) }).toEqual({
		what,
		size: true,
		message: true,
		hints: true,
	});
}

describe("echoed values are clipped over MCP", () => {
	test("a 3 MB path, absolute or not, to every project tool", async () => {
		const { tools } = await client.listTools();
		const withPath = tools.filter((tool) => "path" in ((tool.inputSchema as { properties?: object }).properties ?? {}));
		expect(withPath.length).toBeGreaterThan(4);
		for (const tool of withPath) {
			for (const path of [`/${THREE_MB}`, THREE_MB, `${repo.root}/${THREE_MB}`]) {
				const answer = await sized(tool.name, { path });
				expect(answer.result.isError).toBe(true);
				expectSmall([tool.name, path.slice(0, 12)], answer);
			}
		}
	});

	test("a 3 MB value for every argument of every tool, and a 1 MB unknown key", async () => {
		const { tools } = await client.listTools();
		let calls = 0;
		for (const tool of tools) {
			const properties = Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}).filter((key) => key !== "path");
			for (const key of properties) {
				expectSmall([tool.name, key], await sized(tool.name, { [key]: THREE_MB }));
				calls++;
			}
			expectSmall([tool.name, "unknown key"], await sized(tool.name, { [THREE_MB.slice(0, 1024 * 1024)]: 1 }));
		}
		expect(calls).toBeGreaterThan(8);
	});

	test("a 3 MB search or target for the manual answers quickly and briefly", async () => {
		const answer = await sized("discern_docs", { search: THREE_MB });
		expect(answer.result.isError).toBe(false);
		expectSmall("search", answer);
		expectSmall("target", await sized("discern_docs", { target: THREE_MB }));
	});

	test("an unknown 1 MB tool name or resource is a short JSON-RPC error", async () => {
		const huge = THREE_MB.slice(0, 1024 * 1024);
		const toolError = await client.callTool({ name: huge, arguments: {} }).then(
			() => "",
			(error: unknown) => String(error),
		);
		expect(toolError).toContain("Unknown tool");
		expect(toolError.length).toBeLessThan(SENTENCE);
		const resourceError = await client.readResource({ uri: `discern://${huge}` }).then(
			() => "",
			(error: unknown) => String(error),
		);
		expect(resourceError).toContain("Unknown resource");
		expect(resourceError.length).toBeLessThan(SENTENCE);
		// A manual page that does not exist is not found like any other resource (SPEC §10).
		for (const uri of [`discern://docs/${huge}`, "discern://docs/no-such-page"]) {
			const pageError = await client.readResource({ uri }).then(
				() => "",
				(error: unknown) => String(error),
			);
			expect(pageError).toContain("Unknown resource");
			expect(pageError.length).toBeLessThan(SENTENCE);
		}
	});
});
