import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { LooseVerb } from "../../src/contract/verb.ts";
import { invokeVerb } from "../../src/mcp/invoke.ts";
import { findVerb } from "../../src/registry.ts";
import { testContext } from "../helpers/repo.ts";

describe("a crashing verb over MCP", () => {
	test("becomes an internal_error envelope that still fits the verb's schema", async () => {
		const status = findVerb("status") as unknown as LooseVerb;
		// The real status definition, with a core that throws: the shape of a bug in any verb.
		const broken: LooseVerb = {
			...status,
			load: async () => ({
				run: async () => {
					throw new Error("boom");
				},
				render: () => "",
			}),
		};
		const originalWrite = process.stderr.write;
		let logged = "";
		process.stderr.write = ((chunk: string) => {
			logged += chunk;
			return true;
		}) as typeof process.stderr.write;
		try {
			const { result, text } = await invokeVerb(broken, testContext("/"), {});
			expect(result.ok).toBe(false);
			expect(result.ok ? "" : result.error).toBe("internal_error");
			expect(v.safeParse(status.envelope, result).success).toBe(true);
			expect(text).toContain("boom");
		} finally {
			process.stderr.write = originalWrite;
		}
		expect(logged).toContain("status crashed");
		expect(logged).toContain("Crash report:");
	});
});
