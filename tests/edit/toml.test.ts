import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { indexKeyPositions, removeKey, setKey } from "../../src/edit/toml.ts";
import { tomlValue } from "../../src/verbs/config/value.ts";

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

/** Set `path` to `value` in `source`; the test fails if the edit was refused. */
function set(source: string, path: string, value: string) {
	const outcome = setKey(source, path.split("."), value);
	if (!outcome.ok) throw new Error(outcome.reason);
	return outcome;
}

describe("setKey: a changed value, every other byte kept (exact bytes)", () => {
	test("replaces a value in place, keeping its trailing comment", () => {
		expect(edited("gate.timeout", "900")).toBe(SOURCE.replace("timeout = 600 # seconds", "timeout = 900 # seconds"));
	});

	test("a string value keeps the alignment before its comment", () => {
		expect(edited("project.name", "market")).toBe(SOURCE.replace('name = "shop"   # display name', 'name = "market"   # display name'));
	});

	// Each row: what the person wrote, the key, the new value text, the exact bytes after, and who made the edit.
	const cases: [string, string, string, string, string, "toml-patch" | "fallback"][] = [
		[
			"CRLF line endings",
			"# c\r\n[gate]\r\ntimeout = 600  # s\r\nfail_fast = true\r\n",
			"gate.timeout",
			"-5",
			"# c\r\n[gate]\r\ntimeout = -5  # s\r\nfail_fast = true\r\n",
			"toml-patch",
		],
		[
			"odd spacing and alignment",
			"[gate]\ntimeout   =    600     # aligned\nfail_fast =true\n",
			"gate.timeout",
			"7",
			"[gate]\ntimeout   =    7     # aligned\nfail_fast =true\n",
			"toml-patch",
		],
		["a literal string keeps its quotes", "[project]\nname = 'shop' # n\n", "project.name", '"market"', "[project]\nname = 'market' # n\n", "toml-patch"],
		["underscore grouping of an integer", "[gate]\ntimeout = 1_000\n", "gate.timeout", "2000", "[gate]\ntimeout = 2_000\n", "toml-patch"],
		["a date", "[x]\nd = 1979-05-27\n", "x.d", "1980-01-01", "[x]\nd = 1980-01-01\n", "toml-patch"],
		["quoted keys", '["my table"]\n"a b" = 1  # q\n\'lit\' = 2\n', "my table.a b", "3", '["my table"]\n"a b" = 3  # q\n\'lit\' = 2\n', "toml-patch"],
		["a dotted key", '[jobs]\ntest.run   =   "x"  # hi\n', "jobs.test.run", '"y"', '[jobs]\ntest.run   =   "y"  # hi\n', "toml-patch"],
		[
			"a key inside an inline table",
			'[jobs]\ntest = { run = "x",   timeout = 5 } # c\n',
			"jobs.test.timeout",
			"9",
			'[jobs]\ntest = { run = "x",   timeout = 9 } # c\n',
			"toml-patch",
		],
		[
			"a string becomes an inline table",
			'[jobs]\ntest = "bun test"  # the suite\n',
			"jobs.test",
			'{ run = "x", timeout = 5 }',
			'[jobs]\ntest = { run = "x", timeout = 5 }  # the suite\n',
			"toml-patch",
		],
		["a non-ASCII line", '[p]\nname = "😀é" # é\nx = 1\n', "p.name", '"é"', '[p]\nname = "é" # é\nx = 1\n', "toml-patch"],
		[
			"after an array of tables",
			"[[a]]\nb = 1\n\n[[a]]\nb = 2\n[gate]\ntimeout = 1\n",
			"gate.timeout",
			"3",
			"[[a]]\nb = 1\n\n[[a]]\nb = 2\n[gate]\ntimeout = 3\n",
			"toml-patch",
		],
		// toml-patch 3.3.0 re-renders this whole line as `\ttimeout = 7 # x`: the value is spliced instead.
		[
			"tabs around `=` (fallback)",
			"[gate]\n\ttimeout\t=\t600\t# x\n\tfail_fast = true\n",
			"gate.timeout",
			"7",
			"[gate]\n\ttimeout\t=\t7\t# x\n\tfail_fast = true\n",
			"fallback",
		],
	];
	for (const [name, source, path, value, expected, via] of cases) {
		test(name, () => {
			const outcome = set(source, path, value);
			expect(outcome.text).toBe(expected);
			expect(outcome.via).toBe(via);
		});
	}

	test("a multi-line array is replaced as a whole; the lines around it stay", () => {
		const source = '[jobs]\nsmoke = [\n  "a",  # one\n  "b",\n]\n\n[gate]\ntimeout = 1\n';
		const outcome = set(source, "jobs.smoke", '[ "c" ]');
		// The library keeps the array's layout and the comment it owns.
		expect(outcome.text).toBe('[jobs]\nsmoke = [\n  "c",  # one\n]\n\n[gate]\ntimeout = 1\n');
		expect(outcome).toMatchObject({ line: 2, before: '[\n  "a",  # one\n  "b",\n]', after: '[\n  "c",  # one\n]' });
	});

	test("reports the line, the value before and the value after", () => {
		expect(set(SOURCE, "gate.timeout", "900")).toMatchObject({ line: 15, before: "600", after: "900" });
		expect(set(SOURCE, "jobs.test.timeout", "5")).toMatchObject({ line: 8, before: "900", after: "5" });
	});
});

describe("setKey: a new key, every other byte kept (exact bytes)", () => {
	test("adds a missing key after the table's last key, even a multi-line one", () => {
		const text = edited("jobs.typecheck", "bunx tsc --noEmit");
		expect(text).toBe(SOURCE.replace('  "bun run e2e",\n]\n', '  "bun run e2e",\n]\ntypecheck = "bunx tsc --noEmit"\n'));
		expect(parseConfig(text).ok).toBe(true);
	});

	test("adds a missing table at the end, after one blank line", () => {
		expect(edited("map.dir", "docs/guide/")).toBe(`${SOURCE}\n[map]\ndir = "docs/guide/"\n`);
	});

	const cases: [string, string, string, string, string, "toml-patch" | "fallback"][] = [
		[
			"CRLF and a key added to an existing table",
			"[gate]\r\ntimeout = 600\r\n",
			"gate.fail_fast",
			"false",
			"[gate]\r\ntimeout = 600\r\nfail_fast = false\r\n",
			"toml-patch",
		],
		["CRLF and a new table", '[p]\r\nname = "x"\r\n', "gate.timeout", "5", '[p]\r\nname = "x"\r\n\r\n[gate]\r\ntimeout = 5\r\n', "toml-patch"],
		[
			"a key added to a table followed by a sub-table",
			'[jobs]\na = "1"\n[jobs.e2e]\nrun = "y"\n\n# trailing\n',
			"jobs.b",
			'"2"',
			'[jobs]\na = "1"\nb = "2"\n[jobs.e2e]\nrun = "y"\n\n# trailing\n',
			"toml-patch",
		],
		[
			"a key added into an inline table",
			'[jobs]\ntest = { run = "x" }  # c\n',
			"jobs.test.timeout",
			"5",
			'[jobs]\ntest = { run = "x", timeout = 5 }  # c\n',
			"toml-patch",
		],
		[
			"an inline table as a new entry",
			'[jobs]\nlint = "l"\n',
			"jobs.e2e",
			'{ run = [ "a", "b" ], stage = "test" }',
			'[jobs]\nlint = "l"\ne2e = { run = [ "a", "b" ], stage = "test" }\n',
			"toml-patch",
		],
		[
			"a quoted table name",
			'[scopes."my web"]\npaths = ["a"]\n',
			"scopes.my web.neutral",
			"true",
			'[scopes."my web"]\npaths = ["a"]\nneutral = true\n',
			"toml-patch",
		],
		["a file without a final newline keeps none", '[p]\nname = "x"', "p.y", "1", '[p]\nname = "x"\ny = 1', "toml-patch"],
		["an empty file", "", "gate.timeout", "5", "[gate]\ntimeout = 5\n", "toml-patch"],
		[
			"keys inside a multi-line string are content",
			'[jobs]\ntest = """\n[gate]\ntimeout = 1\n"""\n',
			"gate.timeout",
			"5",
			'[jobs]\ntest = """\n[gate]\ntimeout = 1\n"""\n\n[gate]\ntimeout = 5\n',
			"toml-patch",
		],
		// toml-patch writes `resources = { db = { … } }`: a person expects the table's own header.
		[
			"a table value under a new nested table (fallback)",
			"[gate]\ntimeout = 1\n",
			"worktree.resources.db",
			'{ create = "createdb x" }',
			'[gate]\ntimeout = 1\n\n[worktree.resources]\ndb = { create = "createdb x" }\n',
			"fallback",
		],
		// toml-patch writes `jobs.lint = …` at the top of the file for a table that exists only through `[jobs.e2e]`.
		["an implicit super-table (fallback)", '[jobs.e2e]\nrun = "y"\n', "jobs.lint", '"l"', '[jobs.e2e]\nrun = "y"\n\n[jobs]\nlint = "l"\n', "fallback"],
		// toml-patch rewrites the previous line as `\ttimeout\t=\t600 # x` when it appends.
		[
			"tabs: indented like the previous key (fallback)",
			"[gate]\n\ttimeout\t=\t600\t# x\n",
			"gate.x",
			"7",
			"[gate]\n\ttimeout\t=\t600\t# x\n\tx = 7\n",
			"fallback",
		],
		// toml-patch normalises the header to `[gate]` when it appends.
		[
			"a spaced table header (fallback)",
			"[ gate ]  # g\ntimeout = 1\n",
			"gate.fail_fast",
			"true",
			"[ gate ]  # g\ntimeout = 1\nfail_fast = true\n",
			"fallback",
		],
	];
	for (const [name, source, path, value, expected, via] of cases) {
		test(name, () => {
			const outcome = set(source, path, value);
			expect(outcome.text).toBe(expected);
			expect(outcome.via).toBe(via);
			expect(outcome.before).toBeNull();
		});
	}

	test("a BOM is the caller's: the source comes without it and goes back without it", () => {
		const outcome = set("[gate]\r\ntimeout = 600\r\n", "gate.fail_fast", "false");
		expect(outcome.text.startsWith("\uFEFF")).toBe(false);
		expect(outcome).toMatchObject({ line: 3, before: null, after: "false" });
	});

	test("a comment right after a table's last key belongs to that table (toml-patch's comment ownership)", () => {
		const source = '[jobs]\na = "1"\n# about gate\n\n[gate]\ntimeout = 1\n';
		expect(set(source, "jobs.b", '"2"').text).toBe('[jobs]\na = "1"\n# about gate\nb = "2"\n\n[gate]\ntimeout = 1\n');
	});
});

describe("setKey: what it leaves to the person", () => {
	test("refusals name the reason and the line", () => {
		for (const [source, path, reason] of [
			[SOURCE, "timeout", "inside a table"],
			['[jobs]\ntest = "x"\n', "jobs.test.run", "`jobs.test` is written as a value at line 2"],
			["[[gate]]\ntimeout = 1\n", "gate.timeout", "`gate` is an array of tables"],
			['jobs.test = "x"\n', "jobs.lint", "`jobs` is written with dotted keys (line 1)"],
			['[jobs]\ntest.run = "x"\n', "jobs.test.stage", "`jobs.test` is written with dotted keys (line 2)"],
		] as const) {
			const outcome = setKey(source, path.split("."), "1");
			expect(outcome.ok ? "" : outcome.reason).toContain(reason);
		}
	});
});

describe("indexKeyPositions", () => {
	test("headers, keys, dotted keys, inline-table keys and array-of-tables entries, CRLF or not", () => {
		for (const eol of ["\n", "\r\n"]) {
			const source = [
				"# c",
				"[jobs]",
				'test = { run = "x", timeot = 5 }',
				"smoke = [",
				'  "a",',
				"]",
				"  [jobs.e2e]",
				"\tstage = 1",
				"a.b.c = 1",
				"[[arr]]",
				"x = 1",
				"[[arr]]",
				"x = 2",
			].join(eol);
			const positions = indexKeyPositions(source);
			expect(positions.get("jobs")).toEqual({ line: 2, col: 1 });
			expect(positions.get("jobs.test.timeot")).toEqual({ line: 3, col: 21 });
			expect(positions.get("jobs.smoke")?.line).toBe(4);
			expect(positions.get("jobs.e2e")).toEqual({ line: 7, col: 3 });
			expect(positions.get("jobs.e2e.stage")).toEqual({ line: 8, col: 2 });
			expect(positions.get("jobs.e2e.a")?.line).toBe(9);
			expect(positions.get("jobs.e2e.a.b.c")?.line).toBe(9);
			expect(positions.get("arr")?.line).toBe(10);
			expect(positions.get("arr.1.x")?.line).toBe(13);
		}
	});

	test("a document the parser refuses has no positions", () => {
		expect(indexKeyPositions("a = \n").size).toBe(0);
	});
});

describe("removeKey: a table and everything under it, every other byte kept (exact bytes)", () => {
	const removed = (source: string, path: string[], blank = 0) => {
		const result = removeKey(source, path, blank);
		if (!result.ok) throw new Error(result.reason);
		return result.text;
	};

	test("the table with its subtables; comments elsewhere and CRLF stay", () => {
		const source =
			'# Codex\r\nmodel = "o3" # the model\r\n\r\n[mcp_servers.discern]\r\ncommand = "discern"\r\nargs = ["mcp"]\r\n# about z\r\n[mcp_servers.discern.env]\r\nX = "1"\r\n\r\n[z]\r\na = 1\r\n';
		expect(removed(source, ["mcp_servers", "discern"])).toBe('# Codex\r\nmodel = "o3" # the model\r\n\r\n# about z\r\n\r\n[z]\r\na = 1\r\n');
	});

	test("blank lines before it go on request (a table refresh appended after one)", () => {
		const source = 'model = "o3"\n\n[mcp_servers.discern]\ncommand = "discern"\nargs = ["mcp"]\n';
		expect(removed(source, ["mcp_servers", "discern"], Number.POSITIVE_INFINITY)).toBe('model = "o3"\n');
		expect(removed(source, ["mcp_servers", "discern"])).toBe('model = "o3"\n\n');
	});

	test("an inline table or dotted keys under the parent's header", () => {
		expect(removed('[mcp_servers]\nother = { command = "o" }\ndiscern = { command = "discern", args = ["mcp"] } # ours\n', ["mcp_servers", "discern"])).toBe(
			'[mcp_servers]\nother = { command = "o" }\n',
		);
		expect(removed('[mcp_servers]\ndiscern.command = "discern"\ndiscern.args = ["mcp"]\nother.command = "o"\n', ["mcp_servers", "discern"])).toBe(
			'[mcp_servers]\nother.command = "o"\n',
		);
	});

	test("nothing there leaves the text as it was; an array of tables is left to the person", () => {
		expect(removed("[a]\nb = 1\n", ["mcp_servers", "discern"])).toBe("[a]\nb = 1\n");
		const refused = removeKey('[[mcp_servers.discern]]\ncommand = "x"\n', ["mcp_servers", "discern"]);
		expect(refused.ok).toBe(false);
	});
});
