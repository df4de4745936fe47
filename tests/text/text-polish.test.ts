import { describe, expect, test } from "bun:test";
import { outputWidth } from "../../src/cli/width.ts";
import { rows, wrap } from "../../src/text/layout.ts";
import { noun, plural } from "../../src/text/plural.ts";
import { relativeTime } from "../../src/text/relative-time.ts";
import { capitalize, endSentence } from "../../src/text/sentence.ts";

describe("plural", () => {
	test("one is singular; zero and many are plural; irregular forms are given", () => {
		expect(plural(1, "problem")).toBe("1 problem");
		expect(plural(0, "problem")).toBe("0 problems");
		expect(plural(2, "problem")).toBe("2 problems");
		expect(plural(3, "process", "processes")).toBe("3 processes");
		expect(noun(1, "finding was", "findings were")).toBe("finding was");
		expect(noun(4, "finding was", "findings were")).toBe("findings were");
	});
});

describe("endSentence", () => {
	test("adds a period only when the text has no ending; a question stays a question", () => {
		expect(endSentence("unknown key `timout`")).toBe("unknown key `timout`.");
		expect(endSentence("did you mean `timeout`?")).toBe("did you mean `timeout`?");
		expect(endSentence("it failed.")).toBe("it failed.");
		expect(endSentence("(see the log.)")).toBe("(see the log.)");
		expect(endSentence("wait…")).toBe("wait…");
		expect(endSentence("(it takes only the global flags)")).toBe("(it takes only the global flags).");
	});

	test("a dangling colon, semicolon or comma gives way to the period", () => {
		expect(endSentence("the files:")).toBe("the files.");
		expect(endSentence("first; ")).toBe("first.");
		expect(endSentence("")).toBe("");
		expect(capitalize("unknown flag")).toBe("Unknown flag");
	});
});

describe("relativeTime", () => {
	const now = new Date("2026-03-10T12:00:00Z");
	const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
	test("seconds, minutes, hours, yesterday, days, then the date", () => {
		expect(relativeTime(ago(3), now)).toBe("just now");
		expect(relativeTime(ago(42), now)).toBe("42 s ago");
		expect(relativeTime(ago(4 * 60 + 30), now)).toBe("4 min ago");
		expect(relativeTime(ago(2 * 3600 + 5), now)).toBe("2 h ago");
		expect(relativeTime(ago(30 * 3600), now)).toBe("yesterday");
		expect(relativeTime(ago(5 * 86400), now)).toBe("5 days ago");
		expect(relativeTime(ago(90 * 86400), now)).toBe("2025-12-10");
	});

	test("a little clock skew is now; the real future and a non-time are shown as written", () => {
		expect(relativeTime(new Date(now.getTime() + 20_000).toISOString(), now)).toBe("just now");
		expect(relativeTime("2027-01-01T00:00:00.000Z", now)).toBe("2027-01-01T00:00:00.000Z");
		expect(relativeTime("not a time", now)).toBe("not a time");
	});
});

describe("wrap and rows", () => {
	test("wraps at the width, keeps code spans whole, cuts only words longer than a line", () => {
		const lines = wrap("see `discern docs mcp` for each editor's configuration", 24);
		expect(lines).toEqual(["see `discern docs mcp`", "for each editor's", "configuration"]);
		expect(wrap("a".repeat(25), 10)).toEqual(["aaaaaaaaaa", "aaaaaaaaaa", "aaaaa"]);
		expect(wrap("one two three", 9, "  ", "    ")).toEqual(["  one two", "    three"]);
	});

	test("rows sit side by side when there is room, stacked below when there is not; never trailing spaces", () => {
		const items = [
			{ label: "--json", description: "Print the result envelope as one JSON document, and nothing else." },
			{ label: "-C, --cwd DIR", description: "Act as if started in DIR." },
		];
		for (const width of [20, 30, 40, 60, 80]) {
			const lines = rows(items, { width, indent: 2, labelWidth: 13 });
			for (const line of lines) {
				expect(line.length).toBeLessThanOrEqual(width);
				expect(line).not.toMatch(/\s$/);
			}
		}
		expect(rows(items, { width: 100, indent: 2, labelWidth: 13 })[0]).toBe(
			"  --json         Print the result envelope as one JSON document, and nothing else.",
		);
		expect(rows(items, { width: 30, indent: 2, labelWidth: 13 }).slice(0, 2)).toEqual(["  --json", "      Print the result"]);
	});
});

describe("outputWidth", () => {
	test("the terminal's width; COLUMNS only narrows it or stands in without a terminal; 80 by default", () => {
		expect(outputWidth(120, {})).toBe(120);
		expect(outputWidth(120, { COLUMNS: "60" })).toBe(60);
		expect(outputWidth(50, { COLUMNS: "200" })).toBe(50);
		expect(outputWidth(undefined, { COLUMNS: "72" })).toBe(72);
		expect(outputWidth(undefined, { COLUMNS: "wide" })).toBe(80);
		expect(outputWidth(undefined, {})).toBe(80);
	});
});
