import { describe, expect, test } from "bun:test";
import { cleanText, oneLine, quoteName } from "../../src/text/terminal.ts";

const ESC = "\u001b";
/** Nothing a terminal would act on: no C0 but tab and newline, no DEL, no C1, no bidi controls. */
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

describe("cleanText", () => {
	test("vitest-style colored output becomes its words", () => {
		const vitest = `${ESC}[31m${ESC}[1mFAIL${ESC}[22m${ESC}[39m tests/a.test.ts > adds\n${ESC}[31mAssertionError: expected 2 to be 3${ESC}[39m\n\t${ESC}[2m❯ tests/a.test.ts:4:15${ESC}[22m`;
		expect(cleanText(vitest)).toBe("FAIL tests/a.test.ts > adds\nAssertionError: expected 2 to be 3\n\t❯ tests/a.test.ts:4:15");
	});

	test("OSC titles and hyperlinks, BEL- or ST-terminated, go whole", () => {
		expect(cleanText(`a${ESC}]0;pwned title\u0007b`)).toBe("ab");
		expect(cleanText(`a${ESC}]2;title${ESC}\\b`)).toBe("ab");
		expect(cleanText(`see ${ESC}]8;;https://x.test${ESC}\\the docs${ESC}]8;;${ESC}\\ now`)).toBe("see the docs now");
		expect(cleanText(`a\u009d0;c1 title\u009cb`)).toBe("ab");
		// Unterminated: cut at the end of its line, the next line survives.
		expect(cleanText(`x${ESC}]0;never ends\nnext line`)).toBe("x\nnext line");
		// DCS, APC.
		expect(cleanText(`a${ESC}Pq#0;2;0;0;0${ESC}\\b${ESC}_apc${ESC}\\c`)).toBe("abc");
	});

	test("clear-screen, cursor moves, private modes and other escapes", () => {
		expect(cleanText(`${ESC}[2J${ESC}[H${ESC}[3;5Hhello${ESC}[K${ESC}[?25l${ESC}[?1049h${ESC}[1A${ESC}[10C!`)).toBe("hello!");
		expect(cleanText(`${ESC}cReset${ESC}7saved${ESC}8${ESC}(Bcharset${ESC}=${ESC}M`)).toBe("Resetsavedcharset");
		expect(cleanText(`a\u009b31mb`)).toBe("ab");
		// A sequence cut by the excerpt's edge leaves no escape behind.
		expect(cleanText(`tail${ESC}[38;5`)).toBe("tail");
		expect(cleanText(`tail${ESC}`)).toBe("tail");
	});

	test("other control characters go; newline and tab stay", () => {
		expect(cleanText("a\u0000b\u0007c\bd\u000be\u000cf\u007fg\u0085h\ti\nj")).toBe("abcdefgh\ti\nj");
		expect(cleanText("safe\u202Egnp.exe\u202C")).toBe("safegnp.exe");
	});

	test("carriage returns: CRLF is a newline, a rewritten line keeps its last frame", () => {
		expect(cleanText("one\r\ntwo\r\n")).toBe("one\ntwo\n");
		expect(cleanText("downloading 10%\rdownloading 50%\rdownloading 100%\ndone")).toBe("downloading 100%\ndone");
		// A progress bar that clears the line before each frame, then ends with a bare CR.
		expect(cleanText(`\r${ESC}[K[==  ] 1/2\r${ESC}[K[====] 2/2\r\nok`)).toBe("[====] 2/2\nok");
		expect(cleanText("error: kept\r")).toBe("error: kept");
	});

	test("plain text comes back untouched, and no output ever carries a control", () => {
		const plain = "src/a.ts:1:2 error — ünïcödé ✔\n\tindented";
		expect(cleanText(plain)).toBe(plain);
		let noise = "";
		for (let code = 0; code < 0x2100; code++) noise += String.fromCharCode(code);
		expect(UNSAFE.test(cleanText(noise))).toBe(false);
		expect(UNSAFE.test(cleanText(`${noise}${ESC}[`.repeat(3)))).toBe(false);
	});

	test("keepColor keeps only color sequences (discern's own rendering)", () => {
		expect(cleanText(`${ESC}[31mred${ESC}[39m${ESC}[2J${ESC}]0;t\u0007`, { keepColor: true })).toBe(`${ESC}[31mred${ESC}[39m`);
	});
});

describe("quoteName", () => {
	test("plain names stay as they are", () => {
		expect(quoteName("src/a b/ünï.ts")).toBe("src/a b/ünï.ts");
	});

	test("a name with a newline, an escape or a quote is quoted the way git quotes paths", () => {
		expect(quoteName("a\nb.txt")).toBe('"a\\nb.txt"');
		expect(quoteName(`${ESC}[31mred.txt`)).toBe('"\\x1b[31mred.txt"');
		expect(quoteName('say "hi"\\.txt')).toBe('"say \\"hi\\"\\\\.txt"');
		expect(quoteName("rtl\u202Etxt.exe")).toBe('"rtl\\u{202e}txt.exe"');
		expect(UNSAFE.test(quoteName("\u0000\u0001\u009b\u2066"))).toBe(false);
	});
});

describe("oneLine", () => {
	test("one line of clean text", () => {
		expect(oneLine(`fatal: ${ESC}[1mbad${ESC}[0m\n  thing\t here `)).toBe("fatal: bad thing here");
	});
});
