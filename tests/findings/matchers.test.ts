import { describe, expect, test } from "bun:test";
import { commandWords, MATCHERS, MAX_FINDINGS, matchersFor, outputDiagnostics } from "../../src/findings/matchers/index.ts";
import { REPO_ROOT } from "../helpers/cli.ts";

/**
 * Each fixture is a tool's real output on a tiny broken project (see
 * tests/fixtures/tool-output/README.md and capture.sh), read with the
 * project's folder as the checkout root the way a job in it would be.
 */
const OUTPUTS = `${REPO_ROOT}/tests/fixtures/tool-output`;

interface Case {
	fixture: string;
	command: string;
	project: string;
	findings: Record<string, unknown>[];
}

/** Ruff's full and concise formats name the same findings. */
const RUFF_FINDINGS = [
	{ severity: "error", message: "`os` imported but unused", file: "pkg/app.py", line: 1, col: 8, rule: "F401" },
	{ severity: "error", message: "`sys` imported but unused", file: "pkg/app.py", line: 2, col: 8, rule: "F401" },
	{ severity: "error", message: "Local variable `unused` is assigned to but never used", file: "pkg/app.py", line: 6, col: 5, rule: "F841" },
	{ severity: "error", message: "Do not use bare `except`", file: "pkg/app.py", line: 12, col: 1, rule: "E722" },
	{ severity: "error", message: "`try`-`except`-`pass` detected, consider logging the exception", file: "pkg/app.py", line: 12, col: 1, rule: "S110" },
	{ severity: "error", message: "Undefined name `undefined_name`", file: "pkg/app.py", line: 14, col: 7, rule: "F821" },
];

/** Both forms of rustfmt's check header name the same hunks; a changed line too long to read in a message is left out of it. */
const RUSTFMT_FINDINGS = [
	{ severity: "error", message: "not formatted as rustfmt would format it: `left+right`", file: "src/lib.rs", line: 2 },
	{ severity: "error", message: "not formatted as rustfmt would format it", file: "src/lib.rs", line: 7 },
	{ severity: "error", message: "not formatted as rustfmt would format it: `pub fn double(x:u64)->u64{x*2}`", file: "src/util.rs", line: 1 },
];

const CASES: Case[] = [
	{
		fixture: "tsc",
		command: "tsc --noEmit",
		project: "ts",
		findings: [
			{ severity: "error", message: "Type 'string' is not assignable to type 'number'.", file: "src/a.ts", line: 1, col: 14, rule: "TS2322" },
			{ severity: "error", message: "Expected 0 arguments, but got 1.", file: "src/a.ts", line: 4, col: 26, rule: "TS2554" },
			{ severity: "error", message: "Type 'number' is not assignable to type 'string'.", file: "src/a.ts", line: 7, col: 35, rule: "TS2322" },
			{
				severity: "error",
				message: "Cannot find module './nowhere' or its corresponding type declarations.",
				file: "src/b.ts",
				line: 1,
				col: 25,
				rule: "TS2307",
			},
		],
	},
	{
		fixture: "tsc-pretty",
		command: "tsc --noEmit --pretty",
		project: "ts",
		findings: [
			{ severity: "error", message: "Type 'string' is not assignable to type 'number'.", file: "src/a.ts", line: 1, col: 14, rule: "TS2322" },
			{ severity: "error", message: "Expected 0 arguments, but got 1.", file: "src/a.ts", line: 4, col: 26, rule: "TS2554" },
			{ severity: "error", message: "Type 'number' is not assignable to type 'string'.", file: "src/a.ts", line: 7, col: 35, rule: "TS2322" },
			{
				severity: "error",
				message: "Cannot find module './nowhere' or its corresponding type declarations.",
				file: "src/b.ts",
				line: 1,
				col: 25,
				rule: "TS2307",
			},
		],
	},
	{
		fixture: "tsc5",
		command: "npx tsc --noEmit",
		project: "ts",
		findings: [
			{ severity: "error", message: "Type 'string' is not assignable to type 'number'.", file: "src/a.ts", line: 1, col: 14, rule: "TS2322" },
			{ severity: "error", message: "Expected 0 arguments, but got 1.", file: "src/a.ts", line: 4, col: 26, rule: "TS2554" },
			{ severity: "error", message: "Type 'number' is not assignable to type 'string'.", file: "src/a.ts", line: 7, col: 35, rule: "TS2322" },
			{
				severity: "error",
				message: "Cannot find module './nowhere' or its corresponding type declarations.",
				file: "src/b.ts",
				line: 1,
				col: 25,
				rule: "TS2307",
			},
		],
	},
	{
		fixture: "tsc5-pretty",
		command: "node_modules/.bin/tsc --pretty",
		project: "ts",
		findings: [
			{ severity: "error", message: "Type 'string' is not assignable to type 'number'.", file: "src/a.ts", line: 1, col: 14, rule: "TS2322" },
			{ severity: "error", message: "Expected 0 arguments, but got 1.", file: "src/a.ts", line: 4, col: 26, rule: "TS2554" },
			{ severity: "error", message: "Type 'number' is not assignable to type 'string'.", file: "src/a.ts", line: 7, col: 35, rule: "TS2322" },
			{
				severity: "error",
				message: "Cannot find module './nowhere' or its corresponding type declarations.",
				file: "src/b.ts",
				line: 1,
				col: 25,
				rule: "TS2307",
			},
		],
	},
	{
		fixture: "eslint-stylish",
		command: "eslint src",
		project: "js",
		findings: [
			{ severity: "error", message: "'unused' is assigned a value but never used", file: "src/a.js", line: 1, col: 7, rule: "no-unused-vars" },
			{ severity: "error", message: "'x' is not defined", file: "src/a.js", line: 2, col: 5, rule: "no-undef" },
			{ severity: "error", message: "Unexpected 'debugger' statement", file: "src/a.js", line: 3, col: 3, rule: "no-debugger" },
			{ severity: "warning", message: "Expected '===' and instead saw '=='", file: "src/a.js", line: 2, col: 7, rule: "eqeqeq" },
			{ severity: "warning", message: "'y' is never reassigned. Use 'const' instead", file: "src/b.js", line: 1, col: 6, rule: "prefer-const" },
		],
	},
	{
		fixture: "eslint-unix",
		command: "eslint --format unix src",
		project: "js",
		findings: [
			{ severity: "error", message: "'unused' is assigned a value but never used.", file: "src/a.js", line: 1, col: 7, rule: "no-unused-vars" },
			{ severity: "error", message: "'x' is not defined.", file: "src/a.js", line: 2, col: 5, rule: "no-undef" },
			{ severity: "error", message: "Unexpected 'debugger' statement.", file: "src/a.js", line: 3, col: 3, rule: "no-debugger" },
			{ severity: "warning", message: "Expected '===' and instead saw '=='.", file: "src/a.js", line: 2, col: 7, rule: "eqeqeq" },
			{ severity: "warning", message: "'y' is never reassigned. Use 'const' instead.", file: "src/b.js", line: 1, col: 6, rule: "prefer-const" },
		],
	},
	{
		fixture: "oxlint",
		command: "oxlint -D no-debugger --deny-warnings src",
		project: "js",
		findings: [
			{ severity: "error", message: "`debugger` statement is not allowed", file: "src/a.js", line: 3, col: 3, rule: "eslint(no-debugger)" },
			{
				severity: "warning",
				message: "Variable 'unused' is declared but never used. Unused variables should start with a '_'.",
				file: "src/a.js",
				line: 1,
				col: 7,
				rule: "eslint(no-unused-vars)",
			},
		],
	},
	{
		fixture: "biome-lint",
		command: "biome lint src",
		project: "js",
		findings: [
			{
				severity: "error",
				message: "This is an unexpected use of the debugger statement.",
				file: "src/a.js",
				line: 3,
				col: 3,
				rule: "lint/suspicious/noDebugger",
			},
			{ severity: "warning", message: "This variable unused is unused.", file: "src/a.js", line: 1, col: 7, rule: "lint/correctness/noUnusedVariables" },
			{
				severity: "warning",
				message: "This let declares a variable that is only assigned once.",
				file: "src/b.js",
				line: 1,
				col: 1,
				rule: "lint/style/useConst",
			},
		],
	},
	{
		fixture: "biome-check",
		command: "npx @biomejs/biome check src",
		project: "js",
		findings: [
			{
				severity: "error",
				message: "This is an unexpected use of the debugger statement.",
				file: "src/a.js",
				line: 3,
				col: 3,
				rule: "lint/suspicious/noDebugger",
			},
			{ severity: "error", message: "Formatter would have printed the following content", file: "src/a.js", rule: "format" },
			{ severity: "error", message: "Formatter would have printed the following content", file: "src/b.js", rule: "format" },
			{ severity: "warning", message: "This variable unused is unused.", file: "src/a.js", line: 1, col: 7, rule: "lint/correctness/noUnusedVariables" },
			{
				severity: "warning",
				message: "This let declares a variable that is only assigned once.",
				file: "src/b.js",
				line: 1,
				col: 1,
				rule: "lint/style/useConst",
			},
		],
	},
	{
		fixture: "biome-format",
		command: "biome format src",
		project: "js",
		findings: [
			{ severity: "error", message: "Formatter would have printed the following content", file: "src/a.js", rule: "format" },
			{ severity: "error", message: "Formatter would have printed the following content", file: "src/b.js", rule: "format" },
		],
	},
	{
		fixture: "prettier-check",
		command: "prettier --check src",
		project: "js",
		findings: [
			{ severity: "error", message: "not formatted as Prettier would format it", file: "src/a.js" },
			{ severity: "error", message: "not formatted as Prettier would format it", file: "src/b.js" },
		],
	},
	{
		fixture: "vitest",
		command: "vitest run",
		project: "vt",
		findings: [
			{ severity: "error", message: "`math > adds`: AssertionError: expected 2 to be 3 // Object.is equality", file: "test/math.test.js", line: 5, col: 19 },
			{ severity: "error", message: "`throws`: Error: boom", file: "test/math.test.js", line: 13, col: 9 },
		],
	},
	{
		// Two tests failing with one error: their FAIL headers follow each other, then the error once; each finding carries the error.
		fixture: "vitest-shared-error",
		command: "vitest run",
		project: "vt-shared",
		findings: [
			// Thrown in the test file's `connect` (frame ` ❯ connect test/pair.test.js:4:9`), called from line 9.
			{ severity: "error", message: "`first`: Error: database is not running", file: "test/pair.test.js", line: 4, col: 9 },
			{ severity: "error", message: "`second`: AssertionError: expected 2 to be 3 // Object.is equality", file: "test/pair.test.js", line: 12, col: 17 },
			{ severity: "error", message: "`store > reads`: Error: database is not running", file: "test/shared.test.js", line: 5, col: 11 },
			{ severity: "error", message: "`store > writes`: Error: database is not running", file: "test/shared.test.js", line: 5, col: 11 },
		],
	},
	{
		// Frames that start with a function name (` ❯ checkEmpty test/cart.test.js:6:24`): the test file's first frame, else the first of the project.
		fixture: "vitest-frames",
		command: "vitest run",
		project: "vt-frames",
		findings: [
			{
				severity: "error",
				message: "`an empty cart costs nothing`: AssertionError: expected +0 to be 1 // Object.is equality",
				file: "test/cart.test.js",
				line: 6,
				col: 24,
			},
			{ severity: "error", message: "`two items`: AssertionError: expected 5 to be 6 // Object.is equality", file: "test/cart.test.js", line: 14, col: 3 },
			{
				severity: "error",
				message: "`cart > adds prices`: AssertionError: expected 1 to be 2 // Object.is equality",
				file: "test/cart.test.js",
				line: 19,
				col: 26,
			},
			{
				severity: "error",
				message: "`named callback`: AssertionError: expected +0 to be 2 // Object.is equality",
				file: "test/cart.test.js",
				line: 28,
				col: 21,
			},
			{
				severity: "error",
				message: "`an empty cart has no count`: RangeError: expected a positive number, got 0",
				file: "test/cart.test.js",
				line: 32,
				col: 3,
			},
		],
	},
	{
		fixture: "jest",
		command: "jest --ci",
		project: "jest",
		findings: [
			{ severity: "error", message: "`math › adds`: expect(received).toBe(expected) // Object.is equality", file: "test/math.test.js", line: 3, col: 19 },
			{ severity: "error", message: "`throws`: boom", file: "test/math.test.js", line: 11, col: 9 },
		],
	},
	{
		fixture: "bun-test",
		command: "bun test",
		project: "bt",
		findings: [
			{ severity: "error", message: "`math > adds`: expect(received).toBe(expected)", file: "test/math.test.ts", line: 5, col: 17 },
			{ severity: "error", message: "`throws`: boom", file: "test/math.test.ts", line: 13, col: 24 },
		],
	},
	{
		// The short summary cut the message (`- AssertionErro...`) or left it out (a long test name): the failure section's `E` line says it whole.
		fixture: "pytest-long",
		command: "pytest",
		project: "py-long",
		findings: [
			{
				severity: "error",
				message:
					"`test_total_of_a_customer_order_with_several_discounted_line_items`: AssertionError: the order total should include every discounted line item once",
				file: "tests/test_orders.py",
				line: 6,
			},
			{
				severity: "error",
				message:
					"`test_raises_on_unknown_customer_identifier_in_the_billing_lookup_table`: KeyError: 'customer 4711 is not in the billing lookup table that was loaded at startup from billing.csv'",
				file: "tests/test_orders.py",
				line: 10,
			},
			{
				severity: "error",
				message: "`test_order_total_with_a_discount`: AssertionError: the discount of one euro was not applied to the order total",
				file: "tests/test_orders.py",
				line: 14,
			},
		],
	},
	{
		fixture: "pytest",
		command: "uv run pytest",
		project: "py",
		findings: [
			{ severity: "error", message: "`test_add`: assert 2 == 3", file: "tests/test_app.py", line: 5 },
			{ severity: "error", message: "`test_raises`: ValueError: no such thing", file: "tests/test_app.py", line: 13 },
		],
	},
	{
		fixture: "pytest-q",
		command: "python -m pytest -q",
		project: "py",
		findings: [
			{ severity: "error", message: "`test_add`: assert 2 == 3", file: "tests/test_app.py", line: 5 },
			{ severity: "error", message: "`test_raises`: ValueError: no such thing", file: "tests/test_app.py", line: 13 },
		],
	},
	{
		fixture: "mypy",
		command: "mypy app.py typed.py",
		project: "py",
		findings: [
			{ severity: "error", message: 'Argument 1 to "add" has incompatible type "str"; expected "int"', file: "typed.py", line: 3, rule: "arg-type" },
			{
				severity: "error",
				message: 'Incompatible types in assignment (expression has type "int", variable has type "str")',
				file: "typed.py",
				line: 4,
				rule: "assignment",
			},
		],
	},
	{
		fixture: "black-check",
		command: "black --check .",
		project: "py",
		findings: [{ severity: "error", message: "not formatted as Black would format it", file: "fmt.py" }],
	},
	{
		fixture: "ruff",
		command: "ruff check --no-cache .",
		project: "ruff",
		findings: RUFF_FINDINGS,
	},
	{
		fixture: "ruff-concise",
		command: "ruff check --no-cache --output-format=concise .",
		project: "ruff",
		findings: RUFF_FINDINGS,
	},
	{
		fixture: "cargo-build",
		command: "cargo build",
		project: "rs",
		findings: [{ severity: "error", message: "mismatched types", file: "src/main.rs", line: 2, col: 18, rule: "E0308" }],
	},
	{
		fixture: "cargo-clippy",
		command: "cargo clippy -- -D warnings",
		project: "rs",
		findings: [
			{ severity: "error", message: "unused variable: `unused`", file: "src/main.rs", line: 6, col: 9, rule: "unused_variables" },
			{ severity: "error", message: "length comparison to zero", file: "src/main.rs", line: 3, col: 8, rule: "clippy::len_zero" },
			{ severity: "error", message: "useless use of `vec!`", file: "src/main.rs", line: 2, col: 13, rule: "clippy::useless_vec" },
		],
	},
	{
		fixture: "cargo-test",
		command: "cargo test",
		project: "rs",
		findings: [
			{ severity: "error", message: "`tests::adds`: assertion `left == right` failed", file: "src/main.rs", line: 19, col: 9 },
			{ severity: "warning", message: "unused variable: `unused`", file: "src/main.rs", line: 6, col: 9, rule: "unused_variables" },
		],
	},
	{
		// rustfmt 1.6 on: `Diff in /abs/src/lib.rs:1:`, a hunk whose first line is context; one finding per hunk, at its first changed line.
		fixture: "cargo-fmt-check",
		command: "cargo fmt --check",
		project: "rs-fmt",
		findings: RUSTFMT_FINDINGS,
	},
	{
		// rustfmt 1.5 and before: `Diff in /abs/src/lib.rs at line 1:`.
		fixture: "rustfmt-check-old",
		command: "rustfmt --check --edition 2021 src/lib.rs",
		project: "rs-fmt",
		findings: RUSTFMT_FINDINGS,
	},
	{
		fixture: "go-build",
		command: "go build ./...",
		project: "go",
		findings: [
			{ severity: "error", message: 'cannot use "three" (untyped string constant) as int value in variable declaration', file: "main.go", line: 6, col: 14 },
		],
	},
	{
		fixture: "go-vet",
		command: "go vet ./...",
		project: "go",
		findings: [{ severity: "error", message: 'fmt.Printf format %d has arg "three" of wrong type string', file: "main.go", line: 6, col: 2 }],
	},
	{
		fixture: "go-test",
		command: "go test ./...",
		project: "go",
		findings: [
			// As printed, from the package's folder; the gate names it from the root (finding-paths.test.ts).
			{ severity: "error", message: "`TestAdd` (example.com/broken/calc): Add(1, 1) = 2, want 3", file: "calc_test.go", line: 7 },
		],
	},
	{
		fixture: "golangci-lint",
		command: "golangci-lint run",
		project: "go",
		findings: [
			{ severity: "error", message: "Error return value of `os.Remove` is not checked", file: "main.go", line: 9, col: 10, rule: "errcheck" },
			{ severity: "error", message: "func `unused` is unused", file: "calc/calc.go", line: 5, col: 6, rule: "unused" },
		],
	},
	{
		fixture: "gcc",
		command: "gcc -Wall -c src/main.c",
		project: "c",
		findings: [
			{ severity: "error", message: "‘undefined_name’ undeclared (first use in this function)", file: "src/main.c", line: 7, col: 12 },
			{
				severity: "warning",
				message: "initialization of ‘char *’ from ‘int’ makes pointer from integer without a cast",
				file: "src/main.c",
				line: 5,
				col: 15,
				rule: "-Wint-conversion",
			},
			{
				severity: "warning",
				message: "format ‘%d’ expects argument of type ‘int’, but argument 2 has type ‘char *’",
				file: "src/main.c",
				line: 6,
				col: 14,
				rule: "-Wformat=",
			},
			{ severity: "warning", message: "unused variable ‘unused’", file: "src/main.c", line: 4, col: 9, rule: "-Wunused-variable" },
		],
	},
];

async function read(fixture: string): Promise<string> {
	return Bun.file(`${OUTPUTS}/${fixture}.txt`).text();
}

describe("findings from each tool's default output", () => {
	for (const c of CASES) {
		test(`${c.fixture} (${c.command})`, async () => {
			const found = outputDiagnostics(await read(c.fixture), { name: "check", command: c.command, root: `/tmp/discern-capture/${c.project}` });
			expect(found?.omitted).toBe(0);
			for (const diagnostic of found?.diagnostics ?? []) {
				expect(diagnostic.tool).toBe("check");
				expect(diagnostic.reproduce_cmd).toBe(c.command);
			}
			expect(found?.diagnostics.map(({ tool, reproduce_cmd, ...rest }) => rest)).toEqual(c.findings as never);
		});

		test(`${c.fixture}: a command that names no tool finds the same through the fallback`, async () => {
			const named = outputDiagnostics(await read(c.fixture), { name: "check", command: c.command, root: `/tmp/discern-capture/${c.project}` });
			const unnamed = outputDiagnostics(await read(c.fixture), { name: "check", command: "npm run check", root: `/tmp/discern-capture/${c.project}` });
			expect(unnamed?.diagnostics).toEqual(named?.diagnostics.map((d) => ({ ...d, reproduce_cmd: "npm run check" })) as never);
		});
	}
});

describe("Vitest frames that start with a function name (` ❯ checkEmpty test/cart.test.js:6:24`)", () => {
	async function framed(test: string) {
		const found = outputDiagnostics(await read("vitest-frames"), { name: "test", command: "vitest run", root: "/tmp/discern-capture/vt-frames" });
		const diagnostic = found?.diagnostics.find((d) => d.message.startsWith(`\`${test}\``));
		return diagnostic && { file: diagnostic.file, line: diagnostic.line, col: diagnostic.col };
	}

	test("an assertion in a helper of the test file: the helper's line, not the call's", async () => {
		expect(await framed("an empty cart costs nothing")).toEqual({ file: "test/cart.test.js", line: 6, col: 24 });
	});

	test("an assertion in a helper inside describe/it: the helper's line", async () => {
		expect(await framed("cart > adds prices")).toEqual({ file: "test/cart.test.js", line: 19, col: 26 });
	});

	test("a named test function, its only frame: that frame's line", async () => {
		expect(await framed("named callback")).toEqual({ file: "test/cart.test.js", line: 28, col: 21 });
	});

	test("a helper in another file of the project: the test file's frame", async () => {
		expect(await framed("two items")).toEqual({ file: "test/cart.test.js", line: 14, col: 3 });
	});

	test("an error thrown in a dependency: the test file's frame, never node_modules", async () => {
		expect(await framed("an empty cart has no count")).toEqual({ file: "test/cart.test.js", line: 32, col: 3 });
	});
});

describe("choosing matchers", () => {
	test("command words: the last path segment, and adjacent pairs", () => {
		const words = commandWords("node_modules/.bin/tsc --noEmit && bun test --bail");
		expect(words.has("tsc")).toBe(true);
		expect(words.has("bun test")).toBe(true);
	});

	test("the command names the tools; an unknown command names none", () => {
		expect(matchersFor("npx tsc --noEmit && eslint .").map((m) => m.name)).toEqual(["tsc", "eslint"]);
		expect(matchersFor("uv run pytest -q").map((m) => m.name)).toEqual(["pytest"]);
		expect(matchersFor("cargo clippy --all-targets -- -D warnings").map((m) => m.name)).toEqual(["rustc"]);
		expect(matchersFor("make check")).toEqual([]);
	});

	test("every matcher reads nothing from output that is not its tool's", async () => {
		const prose =
			"Starting the build\nall good: 3 files\nnote: see https://example.com:8080/a:1:2 for more\n[warn] Code style issues found in 2 files. Run Prettier with --write to fix.\n";
		for (const matcher of MATCHERS) expect(matcher.match(prose.split("\n"))).toEqual([]);
		expect(outputDiagnostics(prose, { name: "x", command: "make" })).toBeNull();
	});
});

describe("bounds and cleaning", () => {
	test("terminal colours are stripped before matching (vitest and tsc --pretty print them into a pipe)", async () => {
		const text = await read("tsc5-pretty");
		expect(text).toContain("\u001b[");
		const found = outputDiagnostics(text, { name: "typecheck", command: "tsc --pretty" });
		expect(found?.diagnostics[0]).toMatchObject({ file: "src/a.ts", line: 1, col: 14, rule: "TS2322" });
	});

	test("at most MAX_FINDINGS per job, errors first, the rest counted", () => {
		const lines = [];
		for (let i = 1; i <= 150; i++) lines.push(`src/w.c:${i}:1: warning: w${i} [-Wx]`);
		for (let i = 1; i <= 150; i++) lines.push(`src/e.c:${i}:1: error: e${i}`);
		const found = outputDiagnostics(lines.join("\n"), { name: "build", command: "gcc -c src/*.c" });
		expect(found?.diagnostics.length).toBe(MAX_FINDINGS);
		expect(found?.omitted).toBe(300 - MAX_FINDINGS);
		expect(found?.diagnostics.slice(0, 150).every((d) => d.severity === "error")).toBe(true);
	});

	test("paths inside the root become relative; paths outside stay as printed; no file is invented", () => {
		const text = "/repo/src/a.c:1:2: error: inside\n/elsewhere/b.h:3:4: error: outside\n./c.c:5:6: warning: dotted\n";
		const found = outputDiagnostics(text, { name: "build", command: "cc -c", root: "/repo" });
		expect(found?.diagnostics.map((d) => d.file)).toEqual(["src/a.c", "/elsewhere/b.h", "c.c"]);
		const go = outputDiagnostics("--- FAIL: TestX (0.00s)\nFAIL\nFAIL\texample.com/m\t0.01s\n", { name: "test", command: "go test ./..." });
		expect(go?.diagnostics).toEqual([{ tool: "test", severity: "error", message: "`TestX` (example.com/m) failed", reproduce_cmd: "go test ./..." }]);
	});

	test("control characters are gone before matching; a file name with a quote is quoted; a message is one line", () => {
		const found = outputDiagnostics('src/\u0007bad.c:1:1: error: a\tb\nsrc/"q".c:2:1: error: c', { name: "build", command: "gcc" });
		expect(found?.diagnostics.map((d) => d.file)).toEqual(["src/bad.c", '"src/\\"q\\".c"']);
		expect(found?.diagnostics[0]?.message).toBe("a b");
	});

	test("4 MB of output with very long lines is read well under a second", () => {
		const noise = `${"x".repeat(10_000)}\n${"src/a.ts(1,1): ".repeat(300)}\n`.repeat(300);
		const started = performance.now();
		outputDiagnostics(`${noise}src/a.ts(3,5): error TS2322: late\n`, { name: "t", command: "npm run check" });
		expect(performance.now() - started).toBeLessThan(1_000);
	});
});
