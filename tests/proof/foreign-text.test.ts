import { afterEach, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { done } from "../../src/proof/done.ts";
import { status } from "../../src/verbs/status/status.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { prepare, test as testVerb } from "../helpers/inner-loop.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * Text from outside discern — a job's output, a tool's report, file names —
 * reaches results and the terminal without terminal sequences or control
 * characters; the log file keeps what the job really printed.
 */
const ESC = "\u001b";
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});
async function repo(config: string, files: Record<string, string> = { "README.md": "# fixture\n" }): Promise<TestRepo> {
	const r = await makeRepo({ config, files });
	made.push(r);
	return r;
}

/** A test runner as vitest prints it to a pipe with FORCE_COLOR: colors, a title, a progress bar, a clear-screen. */
const NOISY = String.raw`printf '\033]0;vitest running\007'
printf '\033[2J\033[H'
printf ' RUN  v3.0.0\n'
printf '\r\033[K[=   ] 1/4\r\033[K[==  ] 2/4\r\033[K[====] 4/4\n'
printf '\033[31m\033[1mFAIL\033[22m\033[39m tests/sum.test.ts > adds\n'
printf '\033[31mAssertionError: expected 2 to be 3\033[39m\n'
printf 'bell\007 nul-free \033]8;;https://x.test\033\\link\033]8;;\033\\ done\n'
exit 1
`;

/** Every string anywhere in a result. */
function strings(value: unknown): string[] {
	if (typeof value === "string") return [value];
	if (Array.isArray(value)) return value.flatMap(strings);
	if (typeof value === "object" && value !== null) return Object.values(value).flatMap(strings);
	return [];
}

describe("job output", () => {
	test("excerpts and diagnostics carry the words, not the escapes; the log keeps the bytes", async () => {
		const r = await repo('[jobs]\ntest = "sh noisy.sh"\n', { "noisy.sh": NOISY });
		const result = (await testVerb(r.ctx(), {})) as AnyResult;
		expectValidEnvelope("test", result);
		expect(result.ok).toBe(false);
		const diagnostic = result.diagnostics?.[0];
		expect(diagnostic?.output).toBe(" RUN  v3.0.0\n[====] 4/4\nFAIL tests/sum.test.ts > adds\nAssertionError: expected 2 to be 3\nbell nul-free link done\n");
		for (const text of strings(result)) expect(UNSAFE.test(text)).toBe(false);
		const log = await readFile(diagnostic?.output_path ?? "", "utf8");
		expect(log).toContain(`${ESC}[31m${ESC}[1mFAIL`);
		expect(log).toContain(`${ESC}]0;vitest running\u0007`);
	});

	test("a SARIF report's messages lose their escapes and a file name with a newline is quoted", async () => {
		const sarif = JSON.stringify({
			version: "2.1.0",
			runs: [
				{
					tool: { driver: { name: "lint", rules: [{ id: `no-${ESC}[2Jclear` }] } },
					results: [
						{
							ruleId: `no-${ESC}[2Jclear`,
							level: "error",
							message: { text: `Unexpected ${ESC}[31many${ESC}[39m\r\nsecond ${ESC}]0;t\u0007line` },
							locations: [{ physicalLocation: { artifactLocation: { uri: "src/a\nb.ts" }, region: { startLine: 3 } } }],
						},
					],
				},
			],
		});
		const r = await repo('[jobs]\nlint = "cat lint.sarif; exit 1"\ntest = "true"\n', { "lint.sarif": sarif });
		const prepared = (await prepare(r.ctx(), {})) as AnyResult;
		expectValidEnvelope("prepare", prepared);
		const finding = prepared.diagnostics?.find((d) => d.file !== undefined);
		expect(finding?.message).toBe("Unexpected any\nsecond line");
		expect(finding?.file).toBe('"src/a\\nb.ts"');
		expect(finding?.rule).toBe("no-clear");
		for (const text of strings(prepared)) expect(UNSAFE.test(text)).toBe(false);
	});

	test("the CLI's text and JSON carry no escapes from the job either", async () => {
		const r = await repo('[jobs]\ntest = "sh noisy.sh"\n', { "noisy.sh": NOISY });
		const text = await runDiscern(["test", "--verbose"], { cwd: r.root });
		expect(text.exitCode).toBe(1);
		expect(text.stdout).toContain("AssertionError: expected 2 to be 3");
		expect(UNSAFE.test(text.stdout)).toBe(false);
		const json = await runDiscern(["test", "--json"], { cwd: r.root });
		const envelope = onlyJson(json.stdout);
		expect(json.stdout).not.toContain("\\u001b");
		for (const value of strings(envelope)) expect(UNSAFE.test(value)).toBe(false);
	});
});

describe("file names", () => {
	const NASTY = ["new\nline.txt", `${ESC}[2J${ESC}]0;owned\u0007title.txt`, "bidi\u202Etxt.exe"];

	test("dirty_worktree names each file quoted, on one line, with nothing a terminal would act on", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		for (const name of NASTY) await r.write(name, "x\n");
		const result = (await done(r.ctx(), {})) as AnyResult;
		expectValidEnvelope("done", result);
		expect(result.ok ? null : result.error).toBe("dirty_worktree");
		expect(result.message).toContain('"new\\nline.txt"');
		expect(result.message).toContain('"\\x1b[2J\\x1b]0;owned\\atitle.txt"');
		expect(result.message).toContain('"bidi\\u{202e}txt.exe"');
		expect(UNSAFE.test(result.message)).toBe(false);
	});

	test("status lists them quoted in text; the JSON data keeps the real names", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		for (const name of NASTY) await r.write(name, "x\n");
		const data = (await status(r.ctx(), {})).data;
		expect(data?.changes.files.map((file) => file.path).sort()).toEqual([...NASTY].sort());
		const text = await runDiscern(["status", "--verbose"], { cwd: r.root });
		expect(text.stdout).toContain('"new\\nline.txt"');
		expect(UNSAFE.test(text.stdout)).toBe(false);
	});
});
