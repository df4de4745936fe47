import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020.js";
import { toolEntries } from "../../src/mcp/tools.ts";
import { ensureBinary, REPO_ROOT } from "../helpers/cli.ts";
import { connectInMemory } from "../helpers/mcp.ts";
import { BASIC_CONFIG, makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * Malformed MCP traffic gets the answer the protocol defines, in one line,
 * and the server keeps serving: a tool call whose `arguments` is not an
 * object gets the tool's own invalid_arguments envelope (valid against its
 * outputSchema); params that are not an object are -32602; a line that is
 * not JSON is -32700. Never -32603 with a validation dump, never silence.
 */
let repo: TestRepo;
let binary: string;
beforeAll(async () => {
	repo = await makeRepo({ config: BASIC_CONFIG });
	binary = await ensureBinary();
});
afterAll(async () => {
	await repo.remove();
});

const ajv = new Ajv2020({ strict: false });

function expectEnvelope(tool: string, result: unknown, got: string): void {
	const parsed = CallToolResultSchema.parse(result);
	expect(parsed.isError).toBe(true);
	const validate = ajv.compile(toolEntries().get(tool)?.listing.outputSchema as object);
	if (!validate(parsed.structuredContent)) throw new Error(`violates the outputSchema of ${tool}: ${ajv.errorsText(validate.errors)}`);
	expect(parsed.structuredContent?.error).toBe("invalid_arguments");
	expect(parsed.structuredContent?.message).toBe(`Invalid arguments for ${tool}: \`arguments\` must be an object, got ${got}.`);
}

const INITIALIZE = {
	jsonrpc: "2.0",
	id: "init",
	method: "initialize",
	params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
};

/** Lines in, one parsed answer per id (or per id-less error, in order) out, from the real server over stdio. */
async function converse(
	command: string[],
	lines: string[],
	expected: number,
): Promise<{ answers: Record<string, unknown>[]; stderr: string; exitCode: number }> {
	const child = Bun.spawn(command, { cwd: repo.root, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
	for (const line of [JSON.stringify(INITIALIZE), '{"jsonrpc":"2.0","method":"notifications/initialized"}', ...lines]) child.stdin.write(`${line}\n`);
	await child.stdin.flush();
	let output = "";
	const reader = child.stdout.getReader();
	const deadline = Date.now() + 15_000;
	while (output.split("\n").filter((line) => line.trim() !== "").length < expected + 1 && Date.now() < deadline) {
		const { value, done } = await reader.read();
		if (done) break;
		output += new TextDecoder().decode(value);
	}
	reader.releaseLock();
	await child.stdin.end();
	const [stderr, exitCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
	const answers = output
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Record<string, unknown>)
		.filter((answer) => answer.id !== "init");
	return { answers, stderr, exitCode };
}

const RUNNERS = [
	{ name: "compiled binary", command: () => [binary, "mcp"] },
	{ name: "source", command: () => [process.execPath, join(REPO_ROOT, "src/main.ts"), "mcp"] },
];

describe.each(RUNNERS)("raw JSON-RPC over stdio ($name)", ({ command }) => {
	test("every malformed line is answered in one line, and the server keeps serving", async () => {
		const call = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });
		const lines = [
			call(1, { name: "discern_status", arguments: null }),
			call(2, { name: "discern_status", arguments: [] }),
			call(3, { name: "discern_docs", arguments: "config" }),
			call(4, null),
			call(5, ["discern_status"]),
			JSON.stringify({ jsonrpc: "2.0", id: 6, method: "resources/read", params: null }),
			call(7, { name: 7 }),
			call(8, { name: "discern_status", arguments: {}, _meta: "x" }),
			JSON.stringify({ jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri: 5 } }),
			"this is not json {",
			"[1, 2]",
			// A broken notification is never answered; the next call is.
			JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized", params: "x" }),
			call(10, { name: "discern_status", arguments: {} }),
		];
		const { answers, stderr, exitCode } = await converse(command(), lines, 12);
		expect(exitCode).toBe(0);
		expect(stderr).toBe("");
		const byId = new Map(answers.filter((answer) => answer.id !== undefined).map((answer) => [answer.id, answer]));
		expectEnvelope("discern_status", byId.get(1)?.result, "null");
		expectEnvelope("discern_status", byId.get(2)?.result, "array");
		expectEnvelope("discern_docs", byId.get(3)?.result, "string");
		const errors = (id: number) => (byId.get(id)?.error ?? {}) as { code?: number; message?: string };
		expect(errors(4)).toEqual({ code: -32602, message: "Invalid params: `params` must be an object, got null" });
		expect(errors(5)).toEqual({ code: -32602, message: "Invalid params: `params` must be an object, got array" });
		expect(errors(6)).toEqual({ code: -32602, message: "Invalid params: `params` must be an object, got null" });
		expect(errors(7)).toEqual({ code: -32602, message: "Invalid params for tools/call: `name` must be a string, got number" });
		expect(errors(8).code).toBe(-32602);
		expect(errors(9).code).toBe(-32602);
		expect(errors(9).message).toContain("`params.uri`");
		const idless = answers.filter((answer) => answer.id === undefined).map((answer) => (answer.error as { code: number }).code);
		expect(idless).toEqual([-32700, -32600]);
		for (const answer of answers) {
			const message = (answer.error as { message?: string } | undefined)?.message ?? "";
			expect(message).not.toContain("\n");
			expect((answer.error as { code?: number } | undefined)?.code).not.toBe(-32603);
		}
		expect((byId.get(10)?.result as { isError?: boolean }).isError).toBe(false);
	});
});

describe("the real SDK client, in process", () => {
	test("arguments that are not an object get the envelope; the same session goes on", async () => {
		const { client, close } = await connectInMemory(repo.root);
		try {
			for (const [args, got] of [
				[null, "null"],
				[["x"], "array"],
				["status", "string"],
			] as const) {
				// callTool's types insist on an object; a misbehaving client is exactly what is being tested.
				const result = await client.request(
					{ method: "tools/call", params: { name: "discern_status", arguments: args as unknown as Record<string, unknown> } },
					CallToolResultSchema,
				);
				expectEnvelope("discern_status", result, got);
			}
			const malformed = client.request({ method: "resources/read", params: null as unknown as { uri: string } }, CallToolResultSchema);
			await expect(malformed).rejects.toThrow("`params` must be an object, got null");
			// A path no file system can hold (a lone surrogate) is named for what it is.
			const unnameable = await client.callTool({ name: "discern_status", arguments: { path: `${repo.root}/a\ud800b` } });
			expect(unnameable.isError).toBe(true);
			expect((unnameable.structuredContent as { message: string }).message).toContain("not valid Unicode");
			const fine = await client.callTool({ name: "discern_status", arguments: {} });
			expect(fine.isError).toBe(false);
		} finally {
			await close();
		}
	});
});
