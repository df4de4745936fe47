import { describe, expect, test } from "bun:test";
import { setKey } from "../../src/edit/toml.ts";
import { tomlValue } from "../../src/verbs/config/value.ts";
import { parseConfig } from "../../src/config/load.ts";

const SOURCE = `# discern.toml for the shop
[project]
name = "shop"   # display name

[jobs]
lint = "bunx biome lint ."
# the tests
test = { run = "bun test", timeout = 900 }
smoke = [
  "bun run build",
  "bun run e2e",
]

[gate]
timeout = 600 # seconds
`;

/** The TOML text for the words, failing the test if they were refused. */
function text(input: string): string {
	const value = tomlValue(input);
	if (value.kind === "invalid") throw new Error(value.reason);
	return value.text;
}

function edited(path: string, value: string): string {
	const outcome = setKey(SOURCE, path.split("."), text(value));
	if (!outcome.ok) throw new Error(outcome.reason);
	return outcome.text;
}

describe("tomlValue", () => {
	test("a TOML value is written back from what was parsed; anything else becomes a string", () => {
		expect(text("900")).toBe("900");
		expect(text("true")).toBe("true");
		expect(text('["a", "b"]')).toBe('[ "a", "b" ]');
		expect(text("npm run lint")).toBe('"npm run lint"');
		expect(text('say "hi"')).toBe('"say \\"hi\\""');
		// Nothing rides along with a value: not a comment, not a second line.
		expect(text("5 # was 600")).toBe("5");
		expect(text('5\n[jobs]\ntest = "curl x | sh"')).toBe('"5\\n[jobs]\\ntest = \\"curl x | sh\\""');
	});

	test("a table stays a table, written inline on one line, nested values too", () => {
		expect(tomlValue('{ run = "x", timeout = 5 }')).toEqual({ kind: "structured", text: '{ run = "x", timeout = 5 }' });
		expect(text('{run="x",env={"A B"=1},list=[{a=1979-05-27}]}')).toBe('{ run = "x", env = { "A B" = 1 }, list = [ { a = 1979-05-27 } ] }');
		expect(text("{}")).toBe("{}");
		expect(tomlValue("[1, [2]]")).toEqual({ kind: "structured", text: "[ 1, [ 2 ] ]" });
		expect(tomlValue("2024").kind).toBe("scalar");
		expect(tomlValue('"{ run = 1 }"')).toEqual({ kind: "string", text: '"{ run = 1 }"' });
	});

	test("an inline table that does not parse is refused, not taken as a string; shell commands with braces are strings", () => {
		expect(tomlValue('{ run = "x", timeout = }').kind).toBe("invalid");
		expect(tomlValue("{ run = npm test }").kind).toBe("invalid");
		expect(tomlValue("{ make lint; make test; }")).toEqual({ kind: "string", text: '"{ make lint; make test; }"' });
		expect(tomlValue("{ FOO=1 make & }").kind).toBe("string");
		expect(tomlValue("[ -f dist/app ] && echo built").kind).toBe("string");
	});
});

describe("setKey", () => {
	test("replaces a value in place, keeping its comment and everything else", () => {
		const text = edited("gate.timeout", "900");
		expect(text).toBe(SOURCE.replace("timeout = 600 # seconds", "timeout = 900 # seconds"));
	});

	test("a string value keeps the alignment before its comment", () => {
		expect(edited("project.name", "market")).toBe(SOURCE.replace('name = "shop"   # display name', 'name = "market"   # display name'));
	});

	test("adds a missing key after the table's last key, even a multi-line one", () => {
		const text = edited("jobs.typecheck", "bunx tsc --noEmit");
		expect(text).toContain('  "bun run e2e",\n]\ntypecheck = "bunx tsc --noEmit"\n\n[gate]');
		expect(parseConfig(text).ok).toBe(true);
	});

	test("adds a missing table at the end", () => {
		const text = edited("map.dir", "docs/guide/");
		expect(text.endsWith('timeout = 600 # seconds\n\n[map]\ndir = "docs/guide/"\n')).toBe(true);
	});

	test("refuses what it cannot edit in place", () => {
		for (const [path, reason] of [
			["jobs.test.timeout", "inline table"],
			["jobs.smoke", "multi-line value"],
			["timeout", "inside a table"],
		] as const) {
			const outcome = setKey(SOURCE, path.split("."), "1");
			expect(outcome.ok ? "" : outcome.reason).toContain(reason);
		}
	});

	test("keys inside multi-line strings are not mistaken for keys", () => {
		const source = '[jobs]\ntest = """\n[gate]\ntimeout = 1\n"""\n';
		const outcome = setKey(source, ["gate", "timeout"], "5");
		expect(outcome.ok && outcome.text).toBe(`${source}\n[gate]\ntimeout = 5\n`);
	});
});
