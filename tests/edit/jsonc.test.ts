import { describe, expect, test } from "bun:test";
import { commentCount, detectLayout, mergeJsonPath, readJsonc, removalsOf, removeJsonPath, setJsonPath } from "../../src/edit/jsonc.ts";

const ENTRY = { command: "discern", args: ["mcp"] };
const SERVER = ["mcpServers", "discern"];

/** A server entry laid out at `depth` with `unit` indentation and `eol` line ends. */
function entry(unit: string, depth: number, eol = "\n"): string {
	const at = (level: number) => unit.repeat(depth + level);
	return [`${at(0)}"discern": {`, `${at(1)}"command": "discern",`, `${at(1)}"args": [`, `${at(2)}"mcp"`, `${at(1)}]`, `${at(0)}}`].join(eol);
}

describe("mergeJsonPath: the discern server entry goes in, no other byte moves (exact bytes)", () => {
	const cases: [string, string, string][] = [
		[
			"comments, a trailing comma and a neighbour written on one line (2 spaces)",
			'{\n  // servers\n  "mcpServers": {\n    "other": { "command": "x" }, // trailing\n  },\n  "theme": "dark",\n}\n',
			`{\n  // servers\n  "mcpServers": {\n    "other": { "command": "x" },\n${entry("  ", 2)}, // trailing\n  },\n  "theme": "dark",\n}\n`,
		],
		[
			"4-space indentation",
			'{\n    "mcpServers": {\n        "other": {\n            "command": "x"\n        }\n    }\n}\n',
			`{\n    "mcpServers": {\n        "other": {\n            "command": "x"\n        },\n${entry("    ", 2)}\n    }\n}\n`,
		],
		[
			"tabs and CRLF",
			'{\r\n\t"mcpServers": {\r\n\t\t"other": {\r\n\t\t\t"command": "x"\r\n\t\t}\r\n\t}\r\n}\r\n',
			`{\r\n\t"mcpServers": {\r\n\t\t"other": {\r\n\t\t\t"command": "x"\r\n\t\t},\r\n${entry("\t", 2, "\r\n")}\r\n\t}\r\n}\r\n`,
		],
		[
			"a block comment and other keys around (VS Code's `servers`)",
			'{\n  "servers": {\n    "a": {"type": "stdio", "command": "a"},\n  },\n  /* block */\n  "inputs": []\n}\n',
			`{\n  "servers": {\n    "a": {"type": "stdio", "command": "a"},\n${entry("  ", 2)},\n  },\n  /* block */\n  "inputs": []\n}\n`,
		],
		["a byte-order mark", '\uFEFF{\n  "mcpServers": {\n    "other": {}\n  }\n}\n', `\uFEFF{\n  "mcpServers": {\n    "other": {},\n${entry("  ", 2)}\n  }\n}\n`],
	];
	for (const [name, source, expected] of cases) {
		test(name, () => {
			const path = name.includes("VS Code") ? ["servers", "discern"] : SERVER;
			const added = mergeJsonPath(source, path, ENTRY);
			expect(added).toBe(expected);
			expect(readJsonc(added)).toMatchObject({ ok: true });
			// Removing it again gives back the person's file, byte for byte.
			expect(removeJsonPath(added, path)).toBe(source);
			// A second merge writes nothing.
			expect(mergeJsonPath(added, path, ENTRY)).toBe(added);
		});
	}

	test("a new `mcpServers` table; removing the entry leaves the (now empty) table: jsonc-parser removes only the path it is given", () => {
		const source = '{\n  "theme": "dark" // c\n}\n';
		const added = mergeJsonPath(source, SERVER, ENTRY);
		expect(added).toBe(`{\n  "theme": "dark",\n  "mcpServers": {\n${entry("  ", 2)}\n  } // c\n}\n`);
		expect(removeJsonPath(added, SERVER)).toBe('{\n  "theme": "dark",\n  "mcpServers": {\n  } // c\n}\n');
		// Removing the table discern created restores the original, but for the comma the library left behind.
		expect(removeJsonPath(added, ["mcpServers"])).toBe('{\n  "theme": "dark" // c\n}\n');
	});

	test("an empty `{}` gets the entry on lines of its own; removal leaves `{\\n  }`, not `{}`", () => {
		const added = mergeJsonPath('{\n  "mcpServers": {}\n}\n', SERVER, ENTRY);
		expect(added).toBe(`{\n  "mcpServers": {\n${entry("  ", 2)}\n  }\n}\n`);
		expect(removeJsonPath(added, SERVER)).toBe('{\n  "mcpServers": {\n  }\n}\n');
	});

	test("an empty file becomes a document ending in a newline", () => {
		expect(mergeJsonPath("", SERVER, ENTRY)).toBe(`{\n  "mcpServers": {\n${entry("  ", 2)}\n  }\n}\n`);
	});

	test("merging keeps keys a person added to discern's entry and changes only what differs", () => {
		const source = '{\n  "mcpServers": {\n    "discern": { "command": "old", "env": { "A": "1" } } // mine\n  }\n}\n';
		expect(mergeJsonPath(source, SERVER, ENTRY)).toBe(
			'{\n  "mcpServers": {\n    "discern": { "command": "discern", "env": { "A": "1" },"args": ["mcp"] } // mine\n  }\n}\n',
		);
	});
});

describe("setJsonPath, removeJsonPath, readJsonc, detectLayout", () => {
	test("a scalar is replaced in place", () => {
		expect(setJsonPath('{\n  "a": 1, // one\n  "b": 2,\n}\n', ["a"], 5)).toBe('{\n  "a": 5, // one\n  "b": 2,\n}\n');
	});

	test("removing a path that is not there changes nothing", () => {
		const source = '{ /* c */ "a": 1 }';
		expect(removeJsonPath(source, ["mcpServers", "discern"])).toBe(source);
	});

	test("comments and trailing commas read fine; anything else is an error with its line", () => {
		expect(readJsonc('{\n  // c\n  "a": [1, 2,],\n}')).toEqual({ ok: true, value: { a: [1, 2] } });
		expect(readJsonc('{\n  "a": 1\n  "b": 2\n}')).toEqual({ ok: false, reason: "CommaExpected", line: 3 });
	});

	test("indentation and line ends come from the file", () => {
		expect(detectLayout('{\n    "a": 1\n}').formatting).toMatchObject({ insertSpaces: true, tabSize: 4, eol: "\n" });
		expect(detectLayout('{\r\n\t"a": 1\r\n}').formatting).toMatchObject({ insertSpaces: false, eol: "\r\n" });
		expect(detectLayout("{}").formatting).toMatchObject({ insertSpaces: true, tabSize: 2 });
	});
});

describe("removalsOf: every way to cut a value out, each undoing some insertion exactly", () => {
	test("an appended array element comes out with its comma, the closing line kept", () => {
		const before = '{\n  "list": [\n    { "a": 1 }\n  ]\n}\n';
		const after = setJsonPath(before, ["list", -1], { b: 2 });
		expect(removalsOf(after, ["list", 1])).toContain(before);
	});

	test("a property, first or last, with a comment after it staying", () => {
		const text = '{\n  "a": 1, // one\n  "b": 2\n}\n';
		expect(removalsOf(text, ["b"])).toContain('{\n  "a": 1 // one\n}\n');
		expect(commentCount('{ /* x */ "a": 1 // y\n}')).toBe(2);
		expect(removalsOf(text, ["a"])).toContain('{\n  "b": 2\n}\n');
		expect(removalsOf(text, ["nope"])).toEqual([text]);
	});
});
