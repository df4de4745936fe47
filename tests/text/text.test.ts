import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { positionOf } from "../../src/config/positions.ts";
import { issueSentence } from "../../src/contract/issues.ts";
import { indexKeyPositions } from "../../src/edit/toml.ts";
import { findPage, normalizeTarget, pageFromMarkdown, searchPages } from "../../src/pages/reader.ts";
import { nearest } from "../../src/text/suggest.ts";

describe("nearest", () => {
	test("finds typos, refuses far-fetched matches", () => {
		expect(nearest("stauts", ["status", "setup", "docs"])).toBe("status");
		expect(nearest("timout", ["timeout", "fail_fast"])).toBe("timeout");
		expect(nearest("xylophone", ["status", "docs"])).toBeUndefined();
	});
});

describe("indexKeyPositions", () => {
	const source = ["# comment", "[jobs]", 'test = { run = "x", timeot = 5 }', "", "  [jobs.e2e]", 'run = "y"', '[ "quoted key" . inner ]', "a.b.c = 1"].join(
		"\n",
	);
	const positions = indexKeyPositions(source);

	test("tables, keys, inline-table keys, quoted and dotted keys", () => {
		expect(positions.get("jobs")).toEqual({ line: 2, col: 1 });
		expect(positions.get("jobs.test")).toEqual({ line: 3, col: 1 });
		expect(positions.get("jobs.test.timeot")?.line).toBe(3);
		expect(positions.get("jobs.e2e")).toEqual({ line: 5, col: 3 });
		expect(positions.get("jobs.e2e.run")?.line).toBe(6);
		expect(positions.get("quoted key.inner.a.b.c")?.line).toBe(8);
	});

	test("falls back to the nearest written ancestor", () => {
		expect(positionOf(positions, ["jobs", "e2e", "stage"])?.line).toBe(5);
		expect(positionOf(positions, ["nowhere"])).toBeUndefined();
	});
});

describe("issueSentence", () => {
	const wording = { objectNoun: "object" as const, name: (path: readonly (string | number)[]) => `\`${path.join(".")}\`` };
	const first = (schema: v.GenericSchema, input: unknown) => {
		const result = v.safeParse(schema, input);
		if (result.success) throw new Error("expected a failure");
		return issueSentence(result.issues[0] as v.BaseIssue<unknown>, wording);
	};

	test("types, enums, unknown keys", () => {
		expect(first(v.strictObject({ timeout: v.number() }), { timeout: "5" })).toBe("`timeout` must be a number, got string");
		expect(first(v.strictObject({ mode: v.picklist(["a", "b"]) }), { mode: "c" })).toBe('`mode` must be one of "a", "b", got "c"');
		expect(first(v.strictObject({}), { extra: 1 })).toBe("`extra` is not a known key");
		expect(first(v.strictObject({ list: v.array(v.string()) }), { list: {} })).toBe("`list` must be an array, got object");
	});
});

describe("manual pages", () => {
	const page = pageFromMarkdown("guide/intro", "# Intro\n\nFirst paragraph\ncontinues here.\n\n## Details\n\nThe gate runs jobs.\n");

	test("title and first paragraph", () => {
		expect(page.title).toBe("Intro");
		expect(page.summary).toBe("First paragraph continues here.");
	});

	test("target spellings normalize", () => {
		expect(normalizeTarget("./docs/Guide/Intro.md")).toBe("guide/intro");
		expect(normalizeTarget("guide/README")).toBe("guide");
		expect(findPage([page], "guide/intro/").found).toBe(true);
	});

	test("search scores title hits above body hits", () => {
		const other = pageFromMarkdown("other", "# Other\n\nMentions intro once.\n");
		const matches = searchPages([other, page], "intro");
		expect(matches.map((match) => match.target)).toEqual(["guide/intro", "other"]);
		expect(searchPages([page], "   ")).toEqual([]);
	});
});
