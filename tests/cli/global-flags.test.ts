import { describe, expect, test } from "bun:test";
import { GLOBAL_ARGS } from "../../src/cli/citty-args.ts";
import { extractGlobals } from "../../src/cli/globals.ts";
import { unknownFlag } from "../../src/cli/suggest-flag.ts";
import { GLOBAL_FLAGS, globalSpellings } from "../../src/usage/global-flags.ts";

describe("the global flags list", () => {
	test("every flag it describes is one the parser takes, under every spelling", () => {
		for (const spelling of globalSpellings()) {
			const flag = GLOBAL_FLAGS.find((one) => spelling === `--${one.name}` || spelling === `-${one.alias}`);
			const outcome = extractGlobals(flag?.value ? [spelling, "somewhere"] : [spelling]);
			expect({ spelling, rest: outcome.ok ? outcome.globals.rest : "refused" }).toEqual({ spelling, rest: [] });
		}
	});

	test("the citty command tree carries the same flags", () => {
		expect(Object.keys(GLOBAL_ARGS)).toEqual(GLOBAL_FLAGS.map((flag) => flag.name));
	});
});

describe("unknownFlag", () => {
	test("suggests a global flag after a verb that has none of its own", () => {
		expect(unknownFlag("--verbos", "status", [])).toBe("unknown flag `--verbos` for `discern status`; did you mean `--verbose`?");
		expect(unknownFlag("--zzz", "status", [])).toBe(
			"unknown flag `--zzz` for `discern status` (it takes only the global flags: --json, --cwd, --verbose, --quiet, --version, --help)",
		);
	});

	test("before any verb, and beside a verb's own flags", () => {
		expect(unknownFlag("--jsn", null, [])).toBe("unknown flag `--jsn`; did you mean `--json`?");
		expect(unknownFlag("--serch", "docs", ["search"])).toBe("unknown flag `--serch` for `discern docs`; did you mean `--search`?");
		// A verb's own flag of a global name is listed once, as its own.
		expect(unknownFlag("--zzz", "doctor", ["verbose"])).toBe(
			"unknown flag `--zzz` for `discern doctor` (its flags: --verbose; global flags: --json, --cwd, --quiet, --version, --help)",
		);
	});
});
