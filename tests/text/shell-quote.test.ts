import { describe, expect, test } from "bun:test";
import { pathArgument, shellCommand, shellWord } from "../../src/text/shell-quote.ts";

/** What a shell makes of `printf %s WORD`: the word back, if it was one word and ran nothing. */
async function pasted(shell: string, word: string): Promise<string> {
	const child = Bun.spawn([shell, "-c", `printf %s ${word}`], { stdout: "pipe", stderr: "pipe", cwd: "/tmp" });
	const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
	return out;
}

describe("a printed command's words", () => {
	const values = [
		"plain",
		"agent/x",
		"a b",
		"it's",
		"agent/x;touch$IFS/PWNED;#",
		"$(touch PWNED)`touch PWNED`",
		"a\rRun `rm -rf ~`",
		"a\nb\tc\\d'e",
		"\u001b[31mred",
	];

	test("each value, pasted into bash, is exactly itself and runs nothing", async () => {
		for (const value of values) expect(await pasted("bash", shellWord(value))).toBe(value);
	});

	test("no control character reaches the screen: a carriage return cannot redraw the command shown", () => {
		for (const value of values) expect(shellWord(value)).not.toMatch(/[\u0000-\u001f\u007f]/);
		expect(shellWord("a\rb")).toBe("$'a\\rb'");
	});

	test("safe words stay bare; a path starting with - is no option", () => {
		expect(shellCommand("git", "branch", "agent/x", "refs/discern/recovery/agent/x-1")).toBe("git branch agent/x refs/discern/recovery/agent/x-1");
		expect(shellCommand("git", "add", pathArgument("-f"))).toBe("git add ./-f");
		expect(pathArgument("docs/a.md")).toBe("docs/a.md");
	});
});
