import { describe, expect, test } from "bun:test";
import { clip, clipList, ECHO_LIMIT } from "../../src/text/clip.ts";
import { nearest } from "../../src/text/suggest.ts";

describe("clip", () => {
	test("a short value is itself", () => {
		expect(clip("docs/a.md")).toBe("docs/a.md");
		expect(clip("x".repeat(ECHO_LIMIT))).toBe("x".repeat(ECHO_LIMIT));
	});

	test("a long value keeps its head and says how much was cut", () => {
		expect(clip("x".repeat(ECHO_LIMIT + 5))).toBe(`${"x".repeat(ECHO_LIMIT)}… (5 more characters)`);
		expect(clip("abcdef", 3)).toBe("abc… (3 more characters)");
	});

	test("never splits a character outside the basic plane", () => {
		const clipped = clip(`ab😀cd`, 3);
		expect(clipped).toBe("ab… (4 more characters)");
		expect(clipped.isWellFormed()).toBe(true);
	});

	test("clipList names the first items and counts the rest", () => {
		expect(clipList(["a", "b"])).toBe("a, b");
		expect(clipList(["a", "b", "c", "d"], 2)).toBe("a, b and 2 more");
	});
});

describe("nearest on long input", () => {
	test("a megabyte of input suggests nothing, and a close name is still found", () => {
		const candidates = Array.from({ length: 50 }, (_, i) => `candidate-${i}`);
		expect(nearest("x".repeat(1024 * 1024), candidates)).toBeUndefined();
		expect(nearest("candidat-7", candidates)).toBe("candidate-7");
		expect(nearest(`${"candidate-7".repeat(1)}x`, candidates)).toBe("candidate-7");
	});
});
