import { describe, expect, test } from "bun:test";
import { classify } from "../../src/scopes/classify.ts";
import { compileGlob, compileGlobs, compileScopes, globProblem, scopeGlobIssues } from "../../src/scopes/glob.ts";
import { globRegExp } from "../helpers/glob-reference.ts";

/** A small seeded generator, so generated cases are the same on every run. */
function xorshift(seed: number): (below: number) => number {
	let state = seed;
	return (below) => {
		state ^= state << 13;
		state ^= state >>> 17;
		state ^= state << 5;
		return (state >>> 0) % below;
	};
}

/** Pattern → paths it must match, and paths it must not. */
const RULES: { rule: string; pattern: string; yes: string[]; no: string[] }[] = [
	{
		rule: "dir/** is everything under dir",
		pattern: "apps/web/**",
		yes: ["apps/web/a.ts", "apps/web/src/deep/b.tsx"],
		no: ["apps/web", "apps/webx/a.ts", "x/apps/web/a.ts", "apps/api/a.ts"],
	},
	{ rule: "dir/ means dir/**", pattern: "docs/", yes: ["docs/a.md", "docs/x/y.md"], no: ["docs", "a/docs/x.md", "docsx/a.md"] },
	{
		rule: "*.ext matches the basename at any depth",
		pattern: "*.md",
		yes: ["README.md", "docs/a.md", "a/b/c/d.md", ".github/x.md"],
		no: ["a.mdx", "a.md/x.ts", "md"],
	},
	{ rule: "a slash-less name matches at any depth", pattern: "Makefile", yes: ["Makefile", "a/b/Makefile"], no: ["Makefile.am", "xMakefile"] },
	{ rule: "a leading / anchors a slash-less pattern", pattern: "/Makefile", yes: ["Makefile"], no: ["a/Makefile", "Makefile.am"] },
	{ rule: "a leading / anchors a wildcard too", pattern: "/*.json", yes: ["package.json"], no: ["a/package.json"] },
	{ rule: "a pattern with a slash is anchored", pattern: "src/*.ts", yes: ["src/a.ts"], no: ["x/src/a.ts", "src/a/b.ts"] },
	{ rule: "* does not cross /", pattern: "src/*/index.ts", yes: ["src/a/index.ts"], no: ["src/index.ts", "src/a/b/index.ts"] },
	{ rule: "** spans zero directories", pattern: "src/**/x.ts", yes: ["src/x.ts", "src/a/x.ts", "src/a/b/c/x.ts"], no: ["x.ts", "srcx.ts", "src/a/y.ts"] },
	{ rule: "leading **/ is any depth", pattern: "**/test/*.ts", yes: ["test/a.ts", "a/b/test/c.ts"], no: ["test/a/b.ts", "atest/b.ts"] },
	{ rule: "**/name equals the slash-less name", pattern: "**/*.snap", yes: ["a.snap", "x/y/a.snap"], no: ["a.snap.txt"] },
	{ rule: "** alone is everything", pattern: "**", yes: ["a", "a/b/c"], no: [] },
	{ rule: "? is one character but not /", pattern: "v?.txt", yes: ["v1.txt", "a/v2.txt"], no: ["v10.txt", "v.txt"] },
	{ rule: "[abc] is one of", pattern: "src/[ab].ts", yes: ["src/a.ts", "src/b.ts"], no: ["src/c.ts", "src/ab.ts"] },
	{ rule: "[a-c] is a range", pattern: "v[0-9].txt", yes: ["v7.txt"], no: ["vx.txt"] },
	{ rule: "[!abc] is none of", pattern: "src/[!ab].ts", yes: ["src/c.ts"], no: ["src/a.ts", "src/b.ts"] },
	{ rule: "[!…] never matches /", pattern: "a[!x]b", yes: ["azb"], no: ["a/b"] },
	{ rule: "{a,b} is either", pattern: "{apps,libs}/**", yes: ["apps/x", "libs/y/z"], no: ["tools/x"] },
	{ rule: "braces inside a segment", pattern: "src/*.{ts,tsx}", yes: ["src/a.ts", "src/b.tsx"], no: ["src/c.js"] },
	{ rule: "nested braces", pattern: "a.{b,{c,d}}", yes: ["a.b", "a.c", "x/a.d"], no: ["a.e"] },
	{ rule: "each brace alternative keeps its own anchoring", pattern: "{*.md,docs/**}", yes: ["x/y.md", "docs/a.txt"], no: ["x/docs/a.txt"] },
	{ rule: "an exact path", pattern: "src/lib.rs", yes: ["src/lib.rs"], no: ["src/lib.rss", "a/src/lib.rs"] },
	{ rule: "a plain path also covers what is beneath it", pattern: "apps/web", yes: ["apps/web", "apps/web/a.ts"], no: ["apps/webx", "x/apps/web/a.ts"] },
	{
		rule: "a plain name also covers a directory of that name at any depth",
		pattern: "fixtures",
		yes: ["fixtures/a", "tests/fixtures/b/c"],
		no: ["fixturesx/a"],
	},
	{ rule: "regex characters are literal", pattern: "a+(b).$x", yes: ["a+(b).$x"], no: ["aa(b)x$x"] },
	{ rule: "dotfiles are ordinary", pattern: "*.env", yes: [".env", "a/.env"], no: ["env"] },
	{ rule: "spaces in names", pattern: "my docs/**", yes: ["my docs/a.md"], no: ["my/a.md"] },
];

describe("glob dialect", () => {
	for (const { rule, pattern, yes, no } of RULES) {
		test(`${rule} (${pattern})`, () => {
			expect(globProblem(pattern)).toBeNull();
			const matches = compileGlob(pattern);
			for (const path of yes) expect({ path, matched: matches(path) }).toEqual({ path, matched: true });
			for (const path of no) expect({ path, matched: matches(path) }).toEqual({ path, matched: false });
		});
	}

	test("the scope index agrees with the reference RegExp on every pattern × every path above", () => {
		const paths = [...new Set(RULES.flatMap((rule) => [...rule.yes, ...rule.no]))];
		const classifier = compileScopes(Object.fromEntries(RULES.map((rule, index) => [`s${index}`, { paths: [rule.pattern], neutral: false }])));
		const byPath = new Map(paths.map((path) => [path, classifier.scopesOf(path)]));
		RULES.forEach(({ pattern }, index) => {
			const reference = globRegExp(pattern);
			const single = compileGlob(pattern);
			for (const path of paths) {
				const expected = reference.test(path);
				expect({ pattern, path, single: single(path), index: byPath.get(path)?.includes(index) }).toEqual({ pattern, path, single: expected, index: expected });
			}
		});
	});

	test("and on generated patterns and paths (a seeded differential check)", () => {
		const random = xorshift(42);
		const pick = <T>(items: readonly T[]): T => items[random(items.length)] as T;
		const words = ["a", "b", "src", "docs", "x.ts", "y.md", ".env", "a.b.c"];
		const globParts = [...words, "*", "**", "*.ts", "*.md", "?", "[ab]", "[!a]*", "{a,src}", "{*.md,docs}", "a*"];
		const patterns = Array.from({ length: 300 }, () => {
			const body = Array.from({ length: 1 + random(3) }, () => pick(globParts)).join("/");
			return `${random(4) === 0 ? "/" : ""}${body}${random(6) === 0 ? "/" : ""}`;
		}).filter((pattern) => globProblem(pattern) === null);
		const paths = Array.from({ length: 300 }, () => Array.from({ length: 1 + random(4) }, () => pick(words)).join("/"));
		const classifier = compileScopes(Object.fromEntries(patterns.map((pattern, index) => [`s${index}`, { paths: [pattern], neutral: false }])));
		const references = patterns.map(globRegExp);
		const mismatches: string[] = [];
		for (const path of paths) {
			const hits = new Set(classifier.scopesOf(path));
			references.forEach((reference, index) => {
				if (hits.has(index) !== reference.test(path)) mismatches.push(`${patterns[index]} on ${path}`);
			});
		}
		expect(patterns.length).toBeGreaterThan(200);
		expect(mismatches).toEqual([]);
	});

	test("within one segment, *, ? and classes agree with Bun.Glob (an independent implementation)", () => {
		const random = xorshift(7);
		const tokens = ["a", "b", "*", "?", "[ab]", "[!a]", "ab"];
		let compared = 0;
		const mismatches: string[] = [];
		for (let i = 0; i < 500; i++) {
			const pattern = Array.from({ length: 1 + random(6) }, () => tokens[random(tokens.length)]).join("");
			if (!/[*?[]/.test(pattern)) continue;
			const ours = compileGlob(`/${pattern}`);
			const reference = new Bun.Glob(pattern);
			for (let j = 0; j < 40; j++) {
				const name = Array.from({ length: 1 + random(8) }, () => "abc"[random(3)]).join("");
				compared++;
				if (ours(name) !== reference.match(name)) mismatches.push(`${pattern} on ${name}`);
			}
		}
		expect(compared).toBeGreaterThan(5000);
		expect(mismatches).toEqual([]);
	});

	test("many stars in one segment do not backtrack exponentially", () => {
		const matches = compileGlob(`${"*a".repeat(12)}*b`);
		const started = performance.now();
		expect(matches(`x/${"a".repeat(240)}`)).toBe(false);
		expect(matches(`x/${"a".repeat(240)}b`)).toBe(true);
		// Exponential backtracking would take minutes here; the bound is only a tripwire (speed is scripts/bench.ts's job).
		expect(performance.now() - started).toBeLessThan(5000);
	});

	test("compileGlobs matches when any pattern does; none matches nothing", () => {
		const matches = compileGlobs(["docs/**", "*.md"]);
		expect(matches("docs/a.txt")).toBe(true);
		expect(matches("a/b.md")).toBe(true);
		expect(matches("src/a.ts")).toBe(false);
		expect(compileGlobs([])("a")).toBe(false);
	});

	test("compiling an invalid pattern throws with the explanation", () => {
		expect(() => compileGlob("../x")).toThrow("`..`");
	});
});

/** `depth` folders named `name` (or d0, d1, … when omitted), then `file`. */
function deepPath(depth: number, file: string, name?: string): string {
	return [...Array.from({ length: depth }, (_, i) => name ?? `d${i}`), file].join("/");
}

/**
 * Patterns that make a backtracking matcher take exponential or high
 * polynomial time. Each case asserts the answer; a matcher that backtracks
 * would not finish the file (speed itself is scripts/bench.ts's job).
 */
describe("pathological patterns get the right answer", () => {
	const CASES: { what: string; pattern: string; yes: string[]; no: string[] }[] = [
		{
			what: "16 consecutive **/ against a 20-deep path",
			pattern: `${"**/".repeat(16)}nomatch/x.ts`,
			yes: [deepPath(20, "x.ts", "nomatch"), "nomatch/x.ts", `${deepPath(20, "nomatch")}/x.ts`],
			no: [deepPath(20, "file.txt"), deepPath(20, "x.ts")],
		},
		{
			what: "200 consecutive **/ unanchored",
			pattern: `${"**/".repeat(200)}*.ts`,
			yes: [deepPath(300, "a.ts"), "a.ts"],
			no: [deepPath(300, "a.tsx")],
		},
		{
			what: "**/a/ repeated, against a long run of a/",
			pattern: `${"**/a/".repeat(12)}b`,
			yes: [deepPath(40, "b", "a"), `${deepPath(12, "a", "a")}/b`, `x/${"a/y/".repeat(11)}a/b`],
			no: [deepPath(40, "c", "a"), deepPath(11, "b", "a"), `${deepPath(40, "a", "a")}/c/b`],
		},
		{
			what: "*a* segments between **",
			pattern: `${"**/*a*/".repeat(10)}b/c`,
			yes: [`${deepPath(30, "b", "xaax")}/c`, `${deepPath(10, "b", "a")}/c`],
			no: [`${deepPath(30, "b", "xxxx")}/c`, `${deepPath(9, "b", "a")}/c`, `${deepPath(30, "b", "aaaa")}/d`],
		},
		{
			what: "many * in one segment against a long name",
			pattern: `src/${"*a".repeat(30)}*b`,
			yes: [`src/${"a".repeat(3000)}b`, `src/${"xa".repeat(30)}b`],
			no: [`src/${"a".repeat(3000)}`, `src/${"a".repeat(29)}b`, `src/x/${"a".repeat(40)}b`],
		},
		{
			what: "runs of * and ? after **",
			pattern: `**/${"*?".repeat(20)}*z`,
			yes: [deepPath(50, `${"q".repeat(40)}z`), `${"q".repeat(500)}z`],
			no: [deepPath(50, `${"q".repeat(19)}z`), deepPath(50, "q".repeat(600))],
		},
		{
			what: "classes between stars",
			pattern: `**/${"*[ab]".repeat(15)}*[!ab]`,
			yes: [deepPath(30, `${"ab".repeat(8)}c`)],
			no: [deepPath(30, `${"a".repeat(3000)}`), deepPath(30, `${"c".repeat(3000)}d`)],
		},
		{
			what: "a 4 096-character path of one-letter folders",
			pattern: "**/a/**/a/**/a/**/a/**/a/**/z",
			yes: [deepPath(2048, "z", "a")],
			no: [deepPath(2048, "y", "a"), `${deepPath(2044, "z", "b")}/a/a/a/a/z`],
		},
	];
	for (const { what, pattern, yes, no } of CASES) {
		test(what, () => {
			expect(globProblem(pattern)).toBeNull();
			const matches = compileGlob(pattern);
			const classifier = compileScopes({ s: { paths: [pattern], neutral: false } });
			for (const path of yes)
				expect({ path: path.slice(0, 80), matched: matches(path), indexed: classifier.scopesOf(path).length > 0 }).toEqual({
					path: path.slice(0, 80),
					matched: true,
					indexed: true,
				});
			for (const path of no)
				expect({ path: path.slice(0, 80), matched: matches(path), indexed: classifier.scopesOf(path).length > 0 }).toEqual({
					path: path.slice(0, 80),
					matched: false,
					indexed: false,
				});
		});
	}

	test("on generated multi-segment patterns heavy in ** and *, the matcher agrees with Bun.Glob (an independent implementation)", () => {
		const random = xorshift(1234);
		const pick = <T>(items: readonly T[]): T => items[random(items.length)] as T;
		const words = ["a", "b", "ab", "x.ts", "a.b"];
		const parts = [...words, "*", "**", "**", "**", "*a*", "a*b", "?", "[ab]", "[!a]*", "*.ts", "*?"];
		let compared = 0;
		const mismatches: string[] = [];
		for (let i = 0; i < 1500; i++) {
			const pattern = `${random(3) === 0 ? "/" : ""}${Array.from({ length: 1 + random(7) }, () => pick(parts)).join("/")}${random(6) === 0 ? "/" : ""}`;
			if (globProblem(pattern) !== null) continue;
			const ours = compileGlob(pattern);
			const reference = bunGlobsFor(pattern);
			for (let j = 0; j < 30; j++) {
				const path = Array.from({ length: 1 + random(8) }, () => pick(words)).join("/");
				compared++;
				if (ours(path) !== reference.some((glob) => glob.match(path))) mismatches.push(`${pattern} on ${path}`);
			}
		}
		expect(compared).toBeGreaterThan(30_000);
		expect(mismatches).toEqual([]);
	});

	test("a folder name with a newline is matched like any other (git lists such paths)", () => {
		expect(compileGlob("src/**/x.ts")("src/a\nb/x.ts")).toBe(true);
		expect(compileGlob("src/*/x.ts")("src/a\nb/x.ts")).toBe(true);
		expect(compileGlob("**/a?b/**")("x/a\nb/y")).toBe(true);
	});

	test("a pattern longer than any path is refused, and one with an earlier problem names that problem", () => {
		expect(globProblem(`src/${"a".repeat(5000)}`)).toMatch(/5004 characters long/);
		expect(globProblem(`src/a}${"a".repeat(5000)}`)).toMatch(/`\}` without a matching `\{`/);
		expect(globProblem(`src/${"a".repeat(4000)}`)).toBeNull();
	});

	test("wide braces are refused before they are expanded", () => {
		expect(globProblem(`{${Array.from({ length: 300 }, (_, i) => `a${i}`).join(",")}}`)).toMatch(/more than 256/);
		expect(globProblem(`{${Array.from({ length: 40 }, () => "{a,b}{c,d}{e,f}").join(",")}}`)).toMatch(/more than 256/);
	});
});

/**
 * Bun.Glob for our dialect: a slash-less pattern is unanchored (`**\/` in
 * front), a trailing `/` means `/**`, a plain last segment covers what is
 * beneath it. A leading `/` anchors.
 */
function bunGlobsFor(pattern: string): InstanceType<typeof Bun.Glob>[] {
	let body = pattern.startsWith("/") ? pattern.slice(1) : pattern;
	if (body.endsWith("/")) body += "**";
	const anchored = pattern.startsWith("/") || body.includes("/");
	const last = body.split("/").at(-1) ?? "";
	let alternatives = /[*?[]/.test(last) ? [body] : [body, `${body}/**`];
	if (!anchored) alternatives = alternatives.flatMap((alternative) => [alternative, `**/${alternative}`]);
	return alternatives.map((alternative) => new Bun.Glob(alternative));
}

describe("invalid patterns", () => {
	const INVALID: [string, RegExp][] = [
		["", /empty/],
		["   ", /empty/],
		[" docs/**", /whitespace/],
		["src/[ab.ts", /`\[` without a matching `\]`/],
		["src/{a,b.ts", /`\{` without a matching `\}`/],
		["src/a}.ts", /`\}` without a matching `\{`/],
		["../outside/**", /`\.\.` segment/],
		["src/../x", /`\.\.` segment/],
		["./src/**", /`\.` segment/],
		["C:\\repo\\src", /absolute Windows path/],
		["C:/repo/src", /absolute Windows path/],
		["src\\*.ts", /backslash/],
		["~/x", /`~`/],
		["a//b", /empty path segment/],
		["/", /names no path/],
		["[z-a].txt", /range/],
		["src/[a/b].ts", /cannot match `\/`/],
		["{,x}", /empty/],
		["{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}", /more than 256/],
		["{".repeat(100_000), /nest deeper/],
	];
	for (const [pattern, reason] of INVALID) {
		test(JSON.stringify(pattern).slice(0, 60), () => {
			const problem = globProblem(pattern);
			expect(problem).toMatch(reason);
			// One sentence: no trailing period soup, no line breaks.
			expect(problem).not.toContain("\n");
		});
	}

	test("a colon elsewhere is not a Windows path", () => {
		expect(globProblem("notes/a:b.txt")).toBeNull();
	});

	test("scopeGlobIssues names the scope and index of each bad pattern, and tolerates odd shapes", () => {
		const issues = scopeGlobIssues({
			web: { paths: ["apps/web/**", "../x", 42, "[a"] },
			docs: { paths: "docs/**" },
			odd: null,
			ok: { paths: ["*.md"] },
		});
		expect(issues.map(({ scope, index }) => ({ scope, index }))).toEqual([
			{ scope: "web", index: 1 },
			{ scope: "web", index: 3 },
		]);
		expect(issues[0]?.message).toContain("`scopes.web.paths` entry `../x` is not a valid glob");
		expect(scopeGlobIssues(undefined)).toEqual([]);
		expect(scopeGlobIssues(["x"])).toEqual([]);
	});
});

describe("compileScopes and classify", () => {
	const classifier = compileScopes({
		web: { paths: ["apps/web/**"], neutral: false, gate: "bun run check" },
		docs: { paths: ["docs/**", "*.md"], neutral: true },
		root: { paths: ["/Makefile", "package.json"], neutral: false },
	});

	test("scopes keep declaration order and their gate", () => {
		expect(classifier.scopes.map((scope) => scope.name)).toEqual(["web", "docs", "root"]);
		expect(classifier.scopes[0]?.gate).toBe("bun run check");
		expect(classifier.scopes[1]).not.toHaveProperty("gate");
		expect(classifier.scopesOf("apps/web/README.md")).toEqual([0, 1]);
		expect(classifier.scopesOf("Makefile")).toEqual([2]);
		expect(classifier.scopesOf("lib/Makefile")).toEqual([]);
	});

	test("touched in declaration order, counts per scope, code when a path is not neutral", () => {
		const result = classify(["docs/a.md", "apps/web/x.ts", "README.md"], classifier, true);
		expect(result).toEqual({ touched: ["web", "docs"], code: true, counts: { web: 1, docs: 2, root: 0 } });
	});

	test("only neutral paths: no code", () => {
		expect(classify(["docs/a.md", "x/y.md"], classifier, true)).toEqual({ touched: ["docs"], code: false, counts: { web: 0, docs: 2, root: 0 } });
	});

	test("a path in no scope is code", () => {
		expect(classify(["src/a.ts"], classifier, true)).toEqual({ touched: [], code: true, counts: { web: 0, docs: 0, root: 0 } });
	});

	test("a path in a neutral and a non-neutral scope is covered (not code)", () => {
		expect(classify(["apps/web/README.md"], classifier, true).code).toBe(false);
	});

	test("no changes: nothing touched, no code", () => {
		expect(classify([], classifier, true)).toEqual({ touched: [], code: false, counts: { web: 0, docs: 0, root: 0 } });
	});

	test("incomplete: fails open, every scope touched and code, counts stay honest", () => {
		expect(classify(["docs/a.md"], classifier, false)).toEqual({ touched: ["web", "docs", "root"], code: true, counts: { web: 0, docs: 1, root: 0 } });
	});

	test("performance: 50 000 paths × 20 scopes classify in under 1 s", () => {
		const scopes: Record<string, { paths: string[]; neutral: boolean }> = {};
		for (let i = 0; i < 20; i++) {
			scopes[`scope${i}`] = {
				paths: [`apps/app${i}/**`, `packages/p${i}/src/**/*.ts`, `*.ext${i}`, `/config/c${i}.json`, `{lib,vendor}/m${i}/`, `tests/*/fixture${i}?.txt`],
				neutral: i % 5 === 0,
			};
		}
		const paths: string[] = [];
		for (let i = 0; i < 50_000; i++) {
			const k = i % 25;
			const shapes = [
				`apps/app${k}/src/deep/dir/file${i}.tsx`,
				`packages/p${k}/src/a/b/c/file${i}.ts`,
				`misc/dir${k}/x/y/z/file${i}.md`,
				`tests/unit/fixture${k}a.txt`,
			];
			paths.push(shapes[i % shapes.length] ?? "");
		}
		const started = performance.now();
		const result = classify(paths, compileScopes(scopes), true);
		const elapsed = performance.now() - started;
		expect(result.touched.length).toBe(20);
		expect(result.code).toBe(true);
		// A tripwire against a quadratic or worse slide; scripts/bench.ts measures the real figure.
		expect(elapsed).toBeLessThan(5000);
	});
});
