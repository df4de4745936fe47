import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { extractGlobals } from "../../src/cli/globals.ts";
import { parseVerbArgs } from "../../src/cli/parse-verb-args.ts";
import type { LooseVerb } from "../../src/contract/verb.ts";
import { findVerb } from "../../src/registry.ts";
import { flagSpecs } from "../../src/usage/flag-specs.ts";

const verb = (name: string) => findVerb(name) as unknown as LooseVerb;

describe("flags derived from the input schema", () => {
	test("docs: a positional target and a --search string with alias -s", () => {
		expect(flagSpecs(verb("docs"))).toEqual([
			{ key: "target", flag: "target", kind: "string", description: expect.any(String), positional: true, required: false },
			{ key: "search", flag: "search", kind: "string", description: expect.any(String), alias: "s", positional: false, required: false },
		]);
	});

	test("setup: snake_case keys become kebab-case flags", () => {
		const specs = flagSpecs(verb("setup"));
		expect(specs.find((spec) => spec.key === "dry_run")?.flag).toBe("dry-run");
	});

	test("a picklist becomes an enum flag with its options", () => {
		const shaped = { ...verb("status"), input: v.strictObject({ category: v.optional(v.picklist(["tests", "docs"])) }) } as LooseVerb;
		expect(flagSpecs(shaped)).toEqual([
			{ key: "category", flag: "category", kind: "enum", options: ["tests", "docs"], description: "", positional: false, required: false },
		]);
	});
});

describe("parseVerbArgs", () => {
	test("flags, inline values, aliases, negation and positionals", () => {
		expect(parseVerbArgs(verb("docs"), ["config", "-s", "time out"])).toEqual({ ok: true, raw: { target: "config", search: "time out" } });
		expect(parseVerbArgs(verb("docs"), ["--search=x"])).toEqual({ ok: true, raw: { search: "x" } });
		expect(parseVerbArgs(verb("setup"), ["--dry-run", "--no-confirmed"])).toEqual({ ok: true, raw: { dry_run: true, confirmed: false } });
		expect(parseVerbArgs(verb("docs"), ["--", "--search"])).toEqual({ ok: true, raw: { target: "--search" } });
	});

	test("unknown flags, missing values and extra words are errors that name them", () => {
		const unknown = parseVerbArgs(verb("docs"), ["--serch", "x"]);
		expect(unknown.ok ? "" : unknown.message).toContain("`--serch`");
		expect(unknown.ok ? "" : unknown.message).toContain("did you mean `--search`");
		const missing = parseVerbArgs(verb("docs"), ["--search"]);
		expect(missing.ok ? "" : missing.message).toContain("needs a value");
		const extra = parseVerbArgs(verb("status"), ["now"]);
		expect(extra.ok ? "" : extra.message).toContain("`now`");
		const positionalAsFlag = parseVerbArgs(verb("docs"), ["--target", "x"]);
		expect(positionalAsFlag.ok).toBe(false);
	});
});

describe("extractGlobals", () => {
	test("global flags anywhere on the line", () => {
		const outcome = extractGlobals(["status", "--json", "-C", "/tmp", "--verbose", "--dry-run"]);
		expect(outcome).toEqual({
			ok: true,
			globals: { json: true, verbose: true, quiet: false, cwd: "/tmp", version: false, help: false, rest: ["status", "--dry-run"] },
		});
		expect(extractGlobals(["--cwd=/x", "doctor"])).toMatchObject({ ok: true, globals: { cwd: "/x", rest: ["doctor"] } });
	});

	test("--quiet and -q anywhere on the line", () => {
		expect(extractGlobals(["-q", "prepare"])).toMatchObject({ ok: true, globals: { quiet: true, rest: ["prepare"] } });
		expect(extractGlobals(["done", "--quiet"])).toMatchObject({ ok: true, globals: { quiet: true, rest: ["done"] } });
	});

	test("`--` stops global parsing", () => {
		expect(extractGlobals(["docs", "--", "--json"])).toMatchObject({ ok: true, globals: { json: false, rest: ["docs", "--", "--json"] } });
	});

	test("-C without a directory is an error", () => {
		expect(extractGlobals(["status", "-C"]).ok).toBe(false);
	});
});
