import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { Diagnostic } from "../../src/contract/envelope.ts";
import { MAX_REPORT_DIAGNOSTICS, MAX_REPORT_SCAN, reportDiagnostics } from "../../src/findings/reports/detect.ts";
import { summaryLine } from "../../src/findings/reports/job.ts";
import { JUNIT_OUTPUT_LIMIT, parseJUnit } from "../../src/findings/reports/junit.ts";
import { parseSarif } from "../../src/findings/reports/sarif.ts";
import { decodeEntities, readXml } from "../../src/findings/reports/xml.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/reports");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

const lint = { name: "lint", command: "bunx eslint -f sarif .", root: "/home/ci/shop" };
const test_ = { name: "test", command: "bun run test" };
const base = (job: { name: string; command: string }) => ({ tool: job.name, reproduce_cmd: job.command });

/** A SARIF `locations` array with one file and, optionally, a line. */
const at = (uri: string, startLine?: number) => [{ physicalLocation: { artifactLocation: { uri }, ...(startLine ? { region: { startLine } } : {}) } }];

/** Every diagnostic must fit the envelope's schema, whatever the report held. */
function valid(diagnostics: Diagnostic[] | null | undefined): Diagnostic[] {
	expect(diagnostics).toBeArray();
	for (const d of diagnostics ?? []) expect(v.parse(Diagnostic, d)).toEqual(d);
	return diagnostics ?? [];
}

/** The fields the brief pins, without the (long) output. */
function brief(d: Diagnostic) {
	const { output: _output, truncated: _truncated, ...rest } = d;
	return rest;
}

describe("parseSarif", () => {
	test("ESLint: rules by index, file:// uris made relative, the suppressed result skipped, parse errors from notifications", () => {
		const diagnostics = valid(parseSarif(fixture("eslint.sarif"), lint));
		expect(diagnostics).toEqual([
			{
				...base(lint),
				severity: "error",
				message: "'discount' is assigned a value but never used.",
				file: "src/cart.js",
				line: 12,
				col: 9,
				rule: "no-unused-vars",
			},
			{ ...base(lint), severity: "warning", message: "Expected '===' and instead saw '=='.", file: "src/cart.js", line: 27, col: 15, rule: "eqeqeq" },
			{ ...base(lint), severity: "warning", message: "Unexpected console statement.", file: "src/old code/legacy.js", line: 8, col: 3, rule: "no-console" },
			{ ...base(lint), severity: "error", message: "Parsing error: Unexpected token )", file: "src/broken.js", line: 4, col: 18, rule: "ESL0999" },
		]);
	});

	test("without a root, a file:// uri becomes an absolute path", () => {
		const diagnostics = valid(parseSarif(fixture("eslint.sarif"), { name: "lint", command: "eslint" }));
		expect(diagnostics.map((d) => d.file)).toEqual([
			"/home/ci/shop/src/cart.js",
			"/home/ci/shop/src/cart.js",
			"/home/ci/shop/src/old code/legacy.js",
			"/home/ci/shop/src/broken.js",
		]);
	});

	test("Semgrep: note is a warning, a missing level takes the rule's default, uriBaseId resolved when defined, arguments filled", () => {
		const job = { name: "semgrep", command: "semgrep scan --sarif" };
		const diagnostics = valid(parseSarif(fixture("semgrep.sarif"), job));
		expect(diagnostics).toEqual([
			{
				...base(job),
				severity: "warning",
				message: "Detected string formatting in a SQL statement. Use parameterized queries instead.",
				file: "app/db.py",
				line: 41,
				col: 5,
				rule: "python.lang.security.audit.formatted-sql-query.formatted-sql-query",
			},
			{
				...base(job),
				severity: "error",
				message: "Found 'subprocess' call with 'shell=True'. This is dangerous because this call will spawn the command using a shell process.",
				file: "app/views.py",
				line: 17,
				col: 12,
				rule: "python.lang.security.audit.subprocess-shell-true.subprocess-shell-true",
			},
			{
				...base(job),
				severity: "warning",
				message: "Debug mode enabled in settings.py.",
				file: "services/api/settings.py",
				line: 88,
				rule: "python.django.security.audit.django-debug-true",
			},
		]);
	});

	const sarif = (run: object) => JSON.stringify({ $schema: "https://json.schemastore.org/sarif-2.1.0.json", version: "2.1.0", runs: [run] });

	test("kinds that are not findings, absent baseline results and accepted suppressions are skipped", () => {
		const results = [
			{ ruleId: "a", kind: "pass", message: { text: "held" } },
			{ ruleId: "b", kind: "notApplicable", message: { text: "n/a" } },
			{ ruleId: "c", kind: "informational", message: { text: "fyi" } },
			{ ruleId: "d", level: "error", baselineState: "absent", message: { text: "fixed since" } },
			{ ruleId: "e", level: "error", suppressions: [{ kind: "external", status: "accepted" }], message: { text: "waived" } },
			{ ruleId: "f", level: "error", suppressions: [{ kind: "external", status: "underReview" }], message: { text: "under review" } },
			{ ruleId: "g", level: "error", suppressions: [{ kind: "inSource", status: "rejected" }], message: { text: "rejected waiver" } },
			{ ruleId: "h", level: "error", suppressions: [], message: { text: "empty suppressions" } },
			{ ruleId: "i", kind: "review", message: { text: "look at this" } },
		];
		const diagnostics = valid(parseSarif(sarif({ tool: { driver: { name: "x" } }, results }), test_));
		expect(diagnostics.map((d) => [d.rule, d.severity])).toEqual([
			["f", "error"],
			["g", "error"],
			["h", "error"],
			["i", "warning"],
		]);
	});

	test("messages: text, markdown, message strings by id, then the rule's description; a missing level without a rule default is a warning (SARIF's default)", () => {
		const rules = [
			{ id: "R1", messageStrings: { default: { text: "Variable '{0}' shadows {1}." } } },
			{ id: "R2", shortDescription: { text: "Avoid eval." }, defaultConfiguration: { level: "note" } },
		];
		const results = [
			{ ruleId: "R1", ruleIndex: 0, message: { id: "default", arguments: ["x", "a global"] }, locations: at("src/a.ts", 3) },
			{ ruleId: "R2", message: {}, locations: at("src/b.ts") },
			{ ruleId: "R3", message: { markdown: "Use **const**." } },
			{ ruleId: "R2/eval-string", message: { text: "eval of a string" } },
			{ message: { text: "no rule at all" } },
		];
		const diagnostics = valid(parseSarif(sarif({ tool: { driver: { name: "x", rules } }, results }), test_));
		expect(diagnostics).toEqual([
			{ ...base(test_), severity: "warning", message: "Variable 'x' shadows a global.", file: "src/a.ts", line: 3, rule: "R1" },
			{ ...base(test_), severity: "warning", message: "Avoid eval.", file: "src/b.ts", rule: "R2" },
			{ ...base(test_), severity: "warning", message: "Use **const**.", rule: "R3" },
			{ ...base(test_), severity: "warning", message: "eval of a string", rule: "R2/eval-string" },
			{ ...base(test_), severity: "warning", message: "no rule at all" },
		]);
	});

	test("rules in an extension, artifacts by index, ./ and file://localhost stripped", () => {
		const run = {
			tool: { driver: { name: "CodeQL" }, extensions: [{ name: "pack", rules: [{ id: "js/xss", defaultConfiguration: { level: "error" } }] }] },
			artifacts: [{ location: { uri: "./web/app.js" } }],
			results: [
				{
					ruleId: "js/xss",
					rule: { id: "js/xss", index: 0, toolComponent: { index: 0 } },
					message: { text: "XSS" },
					locations: [{ physicalLocation: { artifactLocation: { index: 0 }, region: { startLine: 7, startColumn: 2 } } }],
				},
				{ ruleId: "js/other", level: "warning", message: { text: "other" }, locations: at("file://localhost/home/ci/shop/lib/x.js", 1) },
			],
		};
		const diagnostics = valid(parseSarif(sarif(run), lint));
		expect(diagnostics.map(brief)).toEqual([
			{ ...base(lint), severity: "error", message: "XSS", file: "web/app.js", line: 7, col: 2, rule: "js/xss" },
			{ ...base(lint), severity: "warning", message: "other", file: "lib/x.js", line: 1, rule: "js/other" },
		]);
	});

	test("not SARIF 2.1.0 → null", () => {
		expect(parseSarif(fixture("eslint-json.json"), lint)).toBeNull();
		expect(parseSarif(JSON.stringify({ version: "2.0.0", runs: [] }), lint)).toBeNull();
		expect(parseSarif(JSON.stringify({ version: "2.1.0", runs: {} }), lint)).toBeNull();
		expect(parseSarif(JSON.stringify({ version: "2.1.0" }), lint)).toBeNull();
		expect(parseSarif("[]", lint)).toBeNull();
		expect(parseSarif("", lint)).toBeNull();
		expect(parseSarif(fixture("eslint.sarif").slice(0, 900), lint)).toBeNull();
	});

	test("a log with no results is a report with no findings", () => {
		expect(parseSarif(sarif({ tool: { driver: { name: "x" } }, results: [] }), lint)).toEqual([]);
		expect(parseSarif(`\uFEFF${JSON.stringify({ version: "2.1.0", runs: [] })}`, lint)).toEqual([]);
	});
});

describe("parseJUnit", () => {
	test("Vitest/Jest: testsuites root, file from classname or the file attribute, CDATA and entities decoded", () => {
		const diagnostics = valid(parseJUnit(fixture("vitest-junit.xml"), test_));
		expect(diagnostics.map(brief)).toEqual([
			{
				...base(test_),
				severity: "error",
				message: "`src/parse/markup.test.ts.markup > escapes <script> tags`: expected '<script>' to be '&lt;script&gt;' // Object.is equality",
				file: "src/parse/markup.test.ts",
				rule: "AssertionError",
			},
			{
				...base(test_),
				severity: "error",
				message: "`cart totals applies the member discount`: Error: expect(received).toBe(expected) // Object.is equality",
				file: "src/cart/totals.test.ts",
			},
		]);
		expect(diagnostics[0]?.output).toStartWith("AssertionError: expected '<script>' to be '&lt;script&gt;'");
		expect(diagnostics[0]?.output).toEndWith("❯ src/parse/markup.test.ts:14:32");
		expect(diagnostics[1]?.output).toContain("at Object.<anonymous> (/home/ci/shop/src/cart/totals.test.ts:22:30)");
		expect(diagnostics.some((d) => d.truncated)).toBe(false);
	});

	test("pytest: testsuite root, <error> reported, <skipped> not, 0-based lines made 1-based", () => {
		const diagnostics = valid(parseJUnit(fixture("pytest-junit.xml"), test_));
		expect(diagnostics.map(brief)).toEqual([
			{
				...base(test_),
				severity: "error",
				message: "`tests.test_api.TestLogin.test_rejects_bad_password`: AssertionError: assert 401 == 403",
				file: "tests/test_api.py",
				line: 42,
			},
			{
				...base(test_),
				severity: "error",
				message: '`tests.test_db.test_migrations_apply`: failed on setup with "psycopg.OperationalError: connection refused"',
				file: "tests/test_db.py",
				line: 10,
			},
		]);
		expect(diagnostics[0]?.output).toContain("client = <FlaskClient <Flask 'shop'>>");
		expect(diagnostics[1]?.output).toEndWith("tests/conftest.py:12: OperationalError");
	});

	test("Surefire: failure and error with types as rules, dotted classnames are not files, flaky reruns and skips are not failures", () => {
		const diagnostics = valid(parseJUnit(fixture("surefire-junit.xml"), test_));
		expect(diagnostics.map(brief)).toEqual([
			{
				...base(test_),
				severity: "error",
				message: "`com.example.shop.CartServiceTest.totalsWithTax`: expected: <10.80> but was: <10.00>",
				rule: "org.opentest4j.AssertionFailedError",
			},
			{
				...base(test_),
				severity: "error",
				message:
					'`com.example.shop.CartServiceTest.checkoutEmptyCart`: java.lang.NullPointerException: Cannot invoke "com.example.shop.Cart.items()" because "cart" is null',
				rule: "java.lang.NullPointerException",
			},
		]);
		expect(diagnostics[0]?.output).toEndWith("at com.example.shop.CartServiceTest.totalsWithTax(CartServiceTest.java:42)");
	});

	test("truncated XML: only the complete test cases, never a throw", () => {
		const diagnostics = valid(parseJUnit(fixture("truncated-junit.xml"), test_));
		expect(diagnostics.map(brief)).toEqual([
			{
				...base(test_),
				severity: "error",
				message: "`checkout charges the card`: Timeout - Async callback was not invoked within the 1000 ms timeout",
				file: "src/checkout.test.ts",
			},
		]);
	});

	test("every prefix of a report gives null or a subset of its findings", () => {
		for (const name of ["vitest-junit.xml", "pytest-junit.xml", "surefire-junit.xml"]) {
			const text = fixture(name);
			const whole = (parseJUnit(text, test_) ?? []).map((d) => JSON.stringify(d));
			for (let cut = 0; cut < text.length; cut += 3) {
				const partial = parseJUnit(text.slice(0, cut), test_);
				if (partial === null) continue;
				for (const d of valid(partial)) expect(whole).toContain(JSON.stringify(d));
			}
		}
	});

	test("a body longer than the limit is cut and marked", () => {
		const body = "x".repeat(JUNIT_OUTPUT_LIMIT + 10);
		const [d] = valid(parseJUnit(`<testsuite><testcase classname="a.B" name="c"><failure>${body}</failure></testcase></testsuite>`, test_));
		expect(d?.output).toHaveLength(JUNIT_OUTPUT_LIMIT);
		expect(d?.truncated).toBe(true);
		expect(d?.message).toBe(`\`a.B.c\`: ${"x".repeat(499)}…`);
	});

	test("nested suites, 1-based lines outside pytest, type as the last resort for a message", () => {
		const xml = `<testsuites><testsuite name="outer"><testsuite name="inner">
			<testcase name="lonely" line="7" file="./spec/a_spec.rb"><failure type="RSpec::Expectations::ExpectationNotMetError"/></testcase>
		</testsuite><testcase classname="lib/b_test.go" name="TestB"><error/></testcase></testsuite></testsuites>`;
		expect(valid(parseJUnit(xml, test_)).map(brief)).toEqual([
			{
				...base(test_),
				severity: "error",
				message: "`lonely`: RSpec::Expectations::ExpectationNotMetError",
				file: "spec/a_spec.rb",
				line: 7,
				rule: "RSpec::Expectations::ExpectationNotMetError",
			},
			{ ...base(test_), severity: "error", message: "`lib/b_test.go.TestB`: error without a message", file: "lib/b_test.go" },
		]);
	});

	test("not JUnit → null; a passing report → no findings", () => {
		expect(parseJUnit("<html><body>hi</body></html>", test_)).toBeNull();
		expect(parseJUnit("PASS src/a.test.ts\n<testsuites></testsuites>", test_)).toBeNull();
		expect(parseJUnit("", test_)).toBeNull();
		expect(parseJUnit('<testsuites name="cut', test_)).toBeNull();
		expect(parseJUnit(fixture("eslint-json.json"), test_)).toBeNull();
		expect(
			parseJUnit('<?xml version="1.0"?>\n<!-- generated --><testsuites><testsuite name="a"><testcase name="ok"/></testsuite></testsuites>', test_),
		).toEqual([]);
		expect(parseJUnit("<testsuite/>", test_)).toEqual([]);
	});
});

describe("the XML reader", () => {
	test("entities, attributes with > and single quotes, doctype, stray <", () => {
		const read = readXml(`<!DOCTYPE r [<!ENTITY x "y">]><r a='1 > 0' b="&#x41;&#66;&amp;&unknown;">a < b &lt; c</r>`);
		expect(read?.root.attrs).toEqual(Object.assign(Object.create(null), { a: "1 > 0", b: "AB&&unknown;" }));
		expect(read?.root.children.join("")).toBe("a < b < c");
		expect(read?.root.closed).toBe(true);
		expect(decodeEntities("&#0; &#xD800; &constructor; &lt;")).toBe("&#0; &#xD800; &constructor; <");
	});
});

describe("reportDiagnostics", () => {
	const noise = (lines: number) =>
		Array.from({ length: lines }, (_, i) =>
			i % 3 === 0 ? `{"level":"info","msg":"step ${i}","version":"2.1.0"}` : `[${i}] compiling module ${i} <ok> { partial`,
		).join("\n");

	test("a whole SARIF file, errors first", () => {
		const found = reportDiagnostics(fixture("semgrep.sarif"), lint);
		expect(found?.format).toBe("sarif");
		expect(found?.omitted).toBe(0);
		expect(valid(found?.diagnostics).map((d) => d.severity)).toEqual(["error", "warning", "warning"]);
	});

	test("SARIF embedded in noisy output", () => {
		const text = `$ bunx eslint -f sarif .\n${noise(40)}\n${fixture("eslint.sarif")}\n${noise(10)}\nerror: 2 problems\n`;
		const found = reportDiagnostics(text, lint);
		expect(found?.format).toBe("sarif");
		expect(valid(found?.diagnostics).map((d) => d.rule)).toEqual(["no-unused-vars", "ESL0999", "eqeqeq", "no-console"]);
	});

	test("a one-line SARIF log among log lines", () => {
		const text = `running semgrep\n${fixture("semgrep.sarif").trim()}\nRan 3 rules on 12 files\n`;
		expect(reportDiagnostics(text, lint)?.diagnostics).toHaveLength(3);
	});

	test("JUnit embedded in noise, after a line that mentions <testsuite>", () => {
		const text = `${noise(30)}\nwriting <testsuite> report to stdout\n${fixture("vitest-junit.xml")}\n Test Files  1 failed | 1 passed (2)\n`;
		const found = reportDiagnostics(text, test_);
		expect(found?.format).toBe("junit");
		expect(valid(found?.diagnostics).map((d) => d.file)).toEqual(["src/parse/markup.test.ts", "src/cart/totals.test.ts"]);
	});

	test("a passing JUnit report is a report with no findings", () => {
		const found = reportDiagnostics(`ok\n<testsuites><testsuite name="a"><testcase name="b"/></testsuite></testsuites>\n`, test_);
		expect(found).toEqual({ format: "junit", diagnostics: [], omitted: 0 });
	});

	test("truncated JUnit in output keeps the complete cases", () => {
		const found = reportDiagnostics(`Running tests…\n${fixture("truncated-junit.xml")}`, test_);
		expect(found?.diagnostics.map((d) => d.message)).toEqual([
			"`checkout charges the card`: Timeout - Async callback was not invoked within the 1000 ms timeout",
		]);
	});

	test("non-reports → null", () => {
		expect(reportDiagnostics("", lint)).toBeNull();
		expect(reportDiagnostics(noise(200), lint)).toBeNull();
		expect(reportDiagnostics(fixture("eslint-json.json"), lint)).toBeNull();
		expect(reportDiagnostics('{"version":"2.1.0","runs":"no"}', lint)).toBeNull();
		expect(reportDiagnostics("error TS2322: Type 'string' is not assignable to type 'number'.\n", lint)).toBeNull();
	});

	test("5 MB of noisy output is scanned well under a second", () => {
		const filler = noise(60_000);
		const big = `${filler.repeat(Math.ceil(5_000_000 / filler.length))}\n${fixture("surefire-junit.xml")}`;
		expect(big.length).toBeGreaterThan(5_000_000);
		const started = performance.now();
		const found = reportDiagnostics(big, test_);
		const elapsed = performance.now() - started;
		expect(found?.diagnostics).toHaveLength(2);
		// Tripwires against runaway scanning on a busy machine; not a speed measurement.
		expect(elapsed).toBeLessThan(5_000);

		const unbalanced = `${'{ "version": "2.1.0", "runs": [\n'.repeat(160_000)}done\n`;
		expect(unbalanced.length).toBeGreaterThan(5_000_000);
		const again = performance.now();
		expect(reportDiagnostics(unbalanced, test_)).toBeNull();
		expect(performance.now() - again).toBeLessThan(5_000);
	});

	test("only the first MAX_REPORT_SCAN characters are scanned", () => {
		const beyond = `${" ".repeat(MAX_REPORT_SCAN)}\n${fixture("vitest-junit.xml")}`;
		expect(reportDiagnostics(beyond, test_)).toBeNull();
	});

	test(`at most ${MAX_REPORT_DIAGNOSTICS} diagnostics, errors kept first, the rest counted`, () => {
		expect(MAX_REPORT_DIAGNOSTICS).toBe(500);
		const results = Array.from({ length: 750 }, (_, i) => ({
			ruleId: `r${i}`,
			level: i < 600 ? "warning" : "error",
			message: { text: `finding ${i}` },
			locations: at(`src/f${i}.ts`, i + 1),
		}));
		const found = reportDiagnostics(JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "x" } }, results }] }), lint);
		expect(found?.omitted).toBe(250);
		const diagnostics = valid(found?.diagnostics);
		expect(diagnostics).toHaveLength(500);
		expect(diagnostics.filter((d) => d.severity === "error")).toHaveLength(150);
		expect(diagnostics[0]?.rule).toBe("r600");
		expect(diagnostics[150]?.rule).toBe("r0");
	});
});

describe("a finding's summary", () => {
	test("summaryLine keeps a report's message to one readable line", () => {
		expect(summaryLine(undefined)).toBeUndefined();
		expect(summaryLine("\n\n")).toBeUndefined();
		expect(summaryLine("\n  expected 1 to be 2.\n    at test.ts:3")).toBe("expected 1 to be 2.");
		expect(summaryLine("x".repeat(600))).toBe(`${"x".repeat(499)}…`);
		expect(summaryLine("abcdef", 4)).toBe("abc…");
	});
});
