import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";

/**
 * Human output goes through consola (colors, prompts) and node:readline
 * (cursor moves): nothing in src/ spells a terminal escape by hand. The one
 * exception is the module that recognises foreign escapes in order to strip them.
 */
const ALLOWED = new Set(["src/text/terminal.ts"]);

/** ESC however TypeScript can spell it: `\u001b`, `\u{1b}`, `\x1b`, octal `\033`, `\e`, or the raw byte. */
const ESCAPE = /\\u001b|\\u\{0*1b\}|\\x1b|\\033|\\e\[|\u001b/i;

describe("no hand-written escape codes", () => {
	test("no file under src/ spells ESC, except the stripper", async () => {
		const offenders: string[] = [];
		for await (const path of new Bun.Glob("src/**/*.ts").scan({ cwd: REPO_ROOT })) {
			if (ALLOWED.has(path)) continue;
			const lines = (await Bun.file(join(REPO_ROOT, path)).text()).split("\n");
			lines.forEach((line, index) => {
				if (ESCAPE.test(line)) offenders.push(`${path}:${index + 1}: ${line.trim()}`);
			});
		}
		expect(offenders).toEqual([]);
	});

	test("the scan sees each spelling (the check is real)", () => {
		for (const spelling of ["\\u001b[31m", "\\u001B[2J", "\\x1b[0m", "\\x1B[K", "\\u{1b}[1m", "\\033[1m", "\\e[0m", "\u001b[0m"])
			expect(ESCAPE.test(spelling)).toBe(true);
		expect(ESCAPE.test("plain text, \\u0007 and \\n")).toBe(false);
	});
});
