import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Ajv2020 from "ajv/dist/2020.js";
import { INSTRUCTIONS } from "../../src/mcp/instructions.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { connectInMemory } from "../helpers/mcp.ts";
import { BASIC_CONFIG, makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

let repo: TestRepo;
let other: TestRepo;
let outside: string;
let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
	repo = await makeRepo({ config: BASIC_CONFIG });
	other = await makeRepo({ config: '[project]\nname = "other"\n[jobs]\ntest = "true"\n' });
	outside = await makeTempDir();
	({ client, close } = await connectInMemory(repo.root));
});
afterAll(async () => {
	await close();
	await Promise.all([repo.remove(), other.remove(), rm(outside, { recursive: true, force: true })]);
});

const ajv = new Ajv2020({ strict: false });

type ToolResult = { structuredContent?: Record<string, unknown>; content?: { type: string; text?: string }[]; isError?: boolean };

const outputValidators = new Map<string, ReturnType<typeof ajv.compile>>();

/** Call a tool and check its structuredContent against the tool's advertised outputSchema ourselves too. */
async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
	if (outputValidators.size === 0) {
		for (const tool of (await client.listTools()).tools) outputValidators.set(tool.name, ajv.compile(tool.outputSchema as object));
	}
	const result = (await client.callTool({ name, arguments: args })) as ToolResult;
	const validate = outputValidators.get(name);
	if (!validate?.(result.structuredContent)) throw new Error(`${name} result violates its outputSchema: ${ajv.errorsText(validate?.errors)}`);
	expect(result.isError).toBe(result.structuredContent?.ok !== true);
	return result;
}

describe("tools/list", () => {
	test("lists exactly the verbs exposed as tools, each fully described", async () => {
		const { tools } = await client.listTools();
		const expected = LOOSE_VERBS.flatMap((verb) => ("tool" in verb.exposure ? [verb.exposure.tool] : []));
		expect(tools.map((tool) => tool.name).sort()).toEqual(expected.sort());
		for (const tool of tools) {
			expect(tool.title?.length).toBeGreaterThan(0);
			expect(tool.description?.length).toBeGreaterThan(0);
			expect(new TextEncoder().encode(tool.description).length).toBeLessThanOrEqual(2048);
			expect(tool.annotations).toBeDefined();
			for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
				expect(typeof tool.annotations?.[hint]).toBe("boolean");
			}
			const input = tool.inputSchema as Record<string, unknown>;
			const output = tool.outputSchema as Record<string, unknown>;
			expect(input.type).toBe("object");
			expect(input.additionalProperties).toBe(false);
			expect(input.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
			expect(output.type).toBe("object");
			expect(output.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
			// Both compile as 2020-12 schemas.
			ajv.compile(input);
			ajv.compile(output);
		}
	});

	test("each description tells an agent when to call it and names only tools and verbs this build has", async () => {
		const { tools } = await client.listTools();
		const names = new Set(tools.map((tool) => tool.name));
		const verbs = new Set(LOOSE_VERBS.map((verb) => verb.name));
		for (const tool of tools) {
			const description = tool.description ?? "";
			expect({ tool: tool.name, when: /\bCall (it|this)\b/.test(description) }).toEqual({ tool: tool.name, when: true });
			for (const [named] of description.matchAll(/\bdiscern_[a-z_]+/g))
				expect({ tool: tool.name, named, exists: names.has(named) }).toEqual({ tool: tool.name, named, exists: true });
			for (const [, verb] of description.matchAll(/`discern ([a-z-]+)/g))
				expect({ tool: tool.name, verb, exists: verbs.has(verb ?? "") }).toEqual({ tool: tool.name, verb, exists: true });
			// uninstall is the owner's, at a terminal (CLI-only): no description may send an agent to it.
			expect(description).not.toMatch(/\buninstall\b/);
		}
		const done = tools.find((tool) => tool.name === "discern_done")?.description ?? "";
		expect(done).toContain("dirty");
		expect(done).toMatch(/Proof[^.]*relay it[^.]*verbatim/);
	});

	test("read-only tools say so; project tools take an absolute path", async () => {
		const { tools } = await client.listTools();
		const status = tools.find((tool) => tool.name === "discern_status");
		expect(status?.annotations?.readOnlyHint).toBe(true);
		const properties = (status?.inputSchema as { properties: Record<string, { pattern?: string }> }).properties;
		expect(properties.path?.pattern).toBe("^\\/");
		const docs = tools.find((tool) => tool.name === "discern_docs");
		expect((docs?.inputSchema as { properties: Record<string, unknown> }).properties.path).toBeUndefined();
	});

	test("the server ships instructions whose first 512 characters stand alone", () => {
		const instructions = client.getInstructions() ?? "";
		expect(instructions).toBe(INSTRUCTIONS);
		expect(new TextEncoder().encode(instructions).length).toBeLessThanOrEqual(2048);
		expect(instructions.slice(0, 512)).toContain("discern_status");
		expect(instructions.slice(0, 512)).toContain("consent");
	});
});

describe("tools/call", () => {
	test("discern_status acts on the working root by default", async () => {
		const result = await call("discern_status", {});
		expect(result.isError).toBe(false);
		expect(result.structuredContent?.verb).toBe("status");
		expect((result.structuredContent?.data as { root: string }).root).toBe(repo.root);
		expect(result.content?.[0]?.text).toContain("Next:");
	});

	test("an absolute path moves a single call to another checkout", async () => {
		const result = await call("discern_status", { path: other.root });
		expect((result.structuredContent?.data as { project: { name: string } }).project.name).toBe("other");
		const again = await call("discern_status", {});
		expect((again.structuredContent?.data as { root: string }).root).toBe(repo.root);
	});

	test("a path naming a file acts on the checkout that holds it; a path through a file is refused", async () => {
		const file = await call("discern_status", { path: join(other.root, "README.md") });
		expect(file.isError).toBe(false);
		expect((file.structuredContent?.data as { root: string; project: { name: string } }).project.name).toBe("other");
		expect((file.structuredContent?.data as { root: string }).root).toBe(other.root);
		const through = await call("discern_status", { path: join(other.root, "README.md", "nested") });
		expect(through.structuredContent?.error).toBe("no_repository");
		expect(String(through.structuredContent?.message)).toContain("a part of its path is a file");
		const missing = await call("discern_impact", { path: join(other.root, "no-such-file.ts") });
		expect(missing.structuredContent?.error).toBe("no_repository");
		expect(String(missing.structuredContent?.message)).toContain("it does not exist");
	});

	test("a relative path is refused with invalid_arguments", async () => {
		const result = await call("discern_status", { path: "some/relative" });
		expect(result.isError).toBe(true);
		expect(result.structuredContent?.error).toBe("invalid_arguments");
		expect(String(result.structuredContent?.message)).toContain("`path` must be an absolute path");
		// The text an agent reads carries the code and every hint, as for any other failure.
		const text = (result.content as { text: string }[])[0]?.text ?? "";
		expect(text).toContain("(invalid_arguments)");
		for (const hint of result.structuredContent?.hints as string[]) expect(text).toContain(hint);
	});

	test("an unknown argument is refused, never silently dropped", async () => {
		const result = await call("discern_doctor", { verbose: true, loud: true });
		expect(result.structuredContent?.error).toBe("invalid_arguments");
		expect(String(result.structuredContent?.message)).toContain("`loud`");
	});

	test("a wrongly typed argument names the field, the expectation and what came", async () => {
		const result = await call("discern_doctor", { verbose: "yes" });
		expect(result.structuredContent?.error).toBe("invalid_arguments");
		expect(String(result.structuredContent?.message)).toContain("`verbose` must be a boolean, got string");
	});

	test("a refusal is an envelope with isError, not a protocol error", async () => {
		const result = await call("discern_status", { path: outside });
		expect(result.isError).toBe(true);
		expect(result.structuredContent?.error).toBe("no_repository");
		expect((result.structuredContent?.hints as string[]).length).toBeGreaterThan(0);
	});

	test("discern_docs works with and without a project", async () => {
		const page = await call("discern_docs", { target: "loop" });
		expect(page.isError).toBe(false);
		expect((page.structuredContent?.data as { mode: string }).mode).toBe("page");
		const missing = await call("discern_docs", { target: "nope" });
		expect(missing.structuredContent?.error).toBe("unknown_target");
		const search = await call("discern_docs", { search: "consent" });
		expect((search.structuredContent?.data as { matches: unknown[] }).matches.length).toBeGreaterThan(0);
	});

	test("discern_doctor returns its checks", async () => {
		const result = await call("discern_doctor", {});
		const checks = (result.structuredContent?.data as { checks: { id: string }[] }).checks.map((check) => check.id);
		expect(checks).toContain("git_version");
		expect(checks).toContain("config");
	});

	test("an unknown tool is a JSON-RPC error", async () => {
		await expect(client.callTool({ name: "discern_nope", arguments: {} })).rejects.toThrow(/Unknown tool/);
	});
});

describe("resources", () => {
	test("lists status, config, docs and each manual page; offers the docs template", async () => {
		const { resources } = await client.listResources();
		const uris = resources.map((resource) => resource.uri);
		for (const uri of ["discern://status", "discern://config", "discern://docs", "discern://docs/config"]) expect(uris).toContain(uri);
		const { resourceTemplates } = await client.listResourceTemplates();
		expect(resourceTemplates.map((template) => template.uriTemplate)).toContain("discern://docs/{+target}");
	});

	async function read(uri: string): Promise<Record<string, unknown>> {
		const { contents } = await client.readResource({ uri });
		const first = contents[0] as { text: string; mimeType?: string };
		expect(first.mimeType).toBe("application/json");
		return JSON.parse(first.text) as Record<string, unknown>;
	}

	test("discern://status carries status data, computed fresh", async () => {
		const before = await read("discern://status");
		expect(before.root).toBe(repo.root);
		expect(before.clean).toBe(true);
		await repo.write("fresh.txt", "new");
		const after = await read("discern://status");
		expect(after.clean).toBe(false);
		await rm(`${repo.root}/fresh.txt`);
	});

	test("discern://config carries the effective config", async () => {
		const config = await read("discern://config");
		expect(config.valid).toBe(true);
		expect((config.value as { gate: { timeout: number } }).gate.timeout).toBe(600);
	});

	test("discern://docs is the index as JSON; a nested page is its markdown", async () => {
		const index = await read("discern://docs");
		expect(index.mode).toBe("index");
		const { contents } = await client.readResource({ uri: "discern://docs/mcp/cursor" });
		const page = contents[0] as { uri: string; text: string; mimeType?: string };
		expect(page.mimeType).toBe("text/markdown");
		expect(page.text).toStartWith("# Cursor\n");
		expect(page.text).toContain(".cursor/mcp.json");
	});

	test("manual pages are listed with their own title and summary, as markdown", async () => {
		const { resources } = await client.listResources();
		const pages = resources.filter((resource) => resource.uri.startsWith("discern://docs/"));
		expect(pages.length).toBeGreaterThan(5);
		for (const page of pages) {
			expect({ uri: page.uri, mimeType: page.mimeType }).toEqual({ uri: page.uri, mimeType: "text/markdown" });
			expect(page.title ?? "").not.toMatch(/^Manual|\//);
			expect((page.description ?? "").length).toBeGreaterThan(20);
		}
		const codex = pages.find((page) => page.uri === "discern://docs/mcp/codex");
		expect(codex?.title).toBe("Codex");
		expect(codex?.description).toContain("config.toml");
		const { resourceTemplates } = await client.listResourceTemplates();
		expect(resourceTemplates.find((template) => template.uriTemplate === "discern://docs/{+target}")?.mimeType).toBe("text/markdown");
	});

	test("an unknown resource is a JSON-RPC error, malformed encodings included", async () => {
		await expect(client.readResource({ uri: "discern://nothing" })).rejects.toThrow(/Unknown resource/);
		await expect(client.readResource({ uri: "discern://docs/%E0%A4%A" })).rejects.toThrow(/Unknown resource/);
		// An unknown manual page is no page at all, not a docs refusal.
		await expect(client.readResource({ uri: "discern://docs/nope" })).rejects.toThrow(/Unknown resource/);
	});
});
