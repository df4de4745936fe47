import { describe, expect, test } from "bun:test";
import { parse as parseWithPatch } from "@decimalturn/toml-patch";
import { parse } from "smol-toml";
import { tomlKey, tomlString } from "../../src/edit/toml-quote.ts";

/** Keys that need quoting, each a different rule of the TOML spec. */
const AWKWARD = ['a"b', "a\\b", "a b", "a.b", "é", "😀", "tab\there", "line\nbreak", "nul\x00", "esc\x1b", "del\x7f", "c1\x85", "\u2028", "'"];

describe("TOML quoting", () => {
	test("a key of A-Za-z0-9_- stays bare; any other is a basic string", () => {
		expect(tomlKey("fail_fast")).toBe("fail_fast");
		expect(tomlKey("e2e-Smoke_9")).toBe("e2e-Smoke_9");
		expect(tomlKey("a.b")).toBe('"a.b"');
		expect(tomlKey('a"b\\c')).toBe('"a\\"b\\\\c"');
		expect(tomlKey("tab\there\x01\x1b\x7f")).toBe('"tab\\there\\u0001\\u001B\\u007F"');
		expect(tomlKey("")).toBe('""');
	});

	test("every key reads back as itself in both TOML parsers discern uses", () => {
		for (const key of AWKWARD) {
			const document = `${tomlKey(key)} = ${tomlString(key)}\n`;
			expect(Object.entries(parse(document))).toEqual([[key, key]]);
			expect(Object.entries(parseWithPatch(document) as Record<string, unknown>)).toEqual([[key, key]]);
		}
	});

	test("text that is not Unicode (a lone surrogate) is written as U+FFFD, never as an escape TOML refuses", () => {
		expect(tomlKey("a\ud800")).toBe('"a\ufffd"');
		expect(tomlString("\udc00b")).toBe('"\ufffdb"');
		expect(parse(`${tomlKey("a\ud800")} = 1`)).toEqual({ "a\ufffd": 1 });
	});
});
