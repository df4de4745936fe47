import { afterEach, describe, expect, test } from "bun:test";
import type { AnyResult, Diagnostic } from "../../src/contract/envelope.ts";
import { done } from "../../src/proof/done.ts";
import type { DoneData } from "../../src/proof/done-schema.ts";
import { renderDone } from "../../src/verbs/done/render.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { connectInMemory } from "../helpers/mcp.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/** Red gates on real tools installed with this repository: tsc (node_modules) and bun test. */
const TSC = `${REPO_ROOT}/node_modules/.bin/tsc`;

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});

const BROKEN_TS = {
	"tsconfig.json":
		'{ "compilerOptions": { "strict": true, "noEmit": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "bundler", "types": [] }, "include": ["src"] }\n',
	"src/a.ts": 'export const n: number = "three";\n\nexport function greet(name: string): string {\n\treturn name.toUpperCase(1);\n}\n',
	"src/ok.ts": "export const fine = 1;\n",
};

function findings(result: AnyResult): Diagnostic[] {
	return (result.diagnostics ?? []).filter((diagnostic) => diagnostic.file !== undefined);
}

describe("a red gate names each finding of the tools' default output", () => {
	test("done running tsc --noEmit: findings with file:line:col and the TS code, in the text too", async () => {
		const r = await makeRepo({ config: `[jobs]\ntypecheck = "${TSC} --noEmit"\n`, files: BROKEN_TS });
		made.push(r);
		const result = await done(r.ctx(), {});
		expectValidEnvelope("done", result);
		expect(result.ok ? "" : result.error).toBe("gate_failed");
		expect(result.diagnostics?.[0]?.message).toMatch(/^typecheck failed \(exit [12]\)$/); // TypeScript 7 exits 1, 5 exited 2
		expect(findings(result)).toEqual([
			{
				tool: "typecheck",
				severity: "error",
				message: "Type 'string' is not assignable to type 'number'.",
				reproduce_cmd: `${TSC} --noEmit`,
				file: "src/a.ts",
				line: 1,
				col: 14,
				rule: "TS2322",
			},
			{
				tool: "typecheck",
				severity: "error",
				message: "Expected 0 arguments, but got 1.",
				reproduce_cmd: `${TSC} --noEmit`,
				file: "src/a.ts",
				line: 4,
				col: 26,
				rule: "TS2554",
			},
		]);
		const text = renderDone(result as Parameters<typeof renderDone>[0], { color: false, verbose: false });
		expect(text).toContain("  ✖ src/a.ts:1:14  TS2322  Type 'string' is not assignable to type 'number'.");
		expect(text).toContain("  ✖ src/a.ts:4:26  TS2554  Expected 0 arguments, but got 1.");
	});

	test("the MCP tool's text content lists the findings as file:line:col", async () => {
		const r = await makeRepo({ config: `[jobs]\ntypecheck = "${TSC} --noEmit"\n`, files: BROKEN_TS });
		made.push(r);
		const { client, close } = await connectInMemory(r.root);
		try {
			const result = (await client.callTool({ name: "discern_done", arguments: {} })) as { content?: { text?: string }[]; structuredContent?: AnyResult };
			expect(result.structuredContent?.ok).toBe(false);
			const text = result.content?.[0]?.text ?? "";
			expect(text).toContain("src/a.ts:1:14  TS2322  Type 'string' is not assignable to type 'number'.");
			expect(text).toContain("src/a.ts:4:26  TS2554");
		} finally {
			await close();
		}
	});

	test("done running bun test: each failing test at its file and line (from the stack), relative to the checkout", async () => {
		const r = await makeRepo({
			config: '[jobs]\ntest = "bun test"\n',
			files: {
				"test/math.test.ts":
					'import { describe, expect, test } from "bun:test";\n\ndescribe("math", () => {\n\ttest("adds", () => {\n\t\texpect(1 + 1).toBe(3);\n\t});\n\ttest("passes", () => {\n\t\texpect(2).toBe(2);\n\t});\n});\n',
			},
		});
		made.push(r);
		const result = await done(r.ctx(), {});
		expect(result.ok).toBe(false);
		expect(findings(result)).toEqual([
			{
				tool: "test",
				severity: "error",
				message: "`math > adds`: expect(received).toBe(expected)",
				reproduce_cmd: "bun test",
				file: "test/math.test.ts",
				line: 5,
				col: 17,
			},
		]);
		const data = result.data as DoneData | undefined;
		expect(data?.failed_stage).toBe("test");
	});

	test("a job whose output no matcher knows keeps the one diagnostic with its excerpt", async () => {
		const r = await makeRepo({ config: '[jobs]\ntest = "echo something went wrong; exit 3"\n' });
		made.push(r);
		const result = await done(r.ctx(), {});
		expect(result.diagnostics?.length).toBe(1);
		expect(result.diagnostics?.[0]?.output).toContain("something went wrong");
	});
});
