import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cycles, everyImport, importsOf, runtimeImports, SRC, shortestCycle, sourceFiles, srcName } from "../helpers/import-graph.ts";

/**
 * The shape of the code: no import cycles, and `src/contract/` a leaf that
 * no verb, projection or domain module is imported into. Only imports that
 * run count: `import type` is erased, and a verb's `load()` is a dynamic
 * `import()` made on purpose so that its code loads only when it runs.
 *
 * The registry sits above the verbs: it imports each `verb.ts`, whose
 * `load()` imports the verb's code lazily. Only the surfaces that project
 * the registry (the CLI, MCP, invoke.ts, main.ts) import it at run time, and
 * only they and the registry import a verb's files; a verb imports no other
 * verb. A domain module (any other file) names no verb's file at all, not
 * even a type: what it shares with a verb lives in its own folder. A module
 * below the surfaces that reached the registry again would close a cycle
 * through a `load()`: the lazy graph has no cycles either.
 *
 * Nothing below the surfaces imports one, not even a type: what a verb and
 * the CLI both need (how a verb is typed on a command line) lives in a domain
 * folder (src/usage/), so the help verb runs on MCP without the CLI.
 */

/** The surfaces: the only files, with the registry itself, that may import the registry or a verb at run time. */
const SURFACES = (file: string) => /^(cli|mcp)\//.test(file) || ["invoke.ts", "main.ts"].includes(file);
const REGISTRY = "registry.ts";

/** `verbs/<name>/…` → name; null for a file outside src/verbs/. */
const verbOf = (file: string) => /^verbs\/([^/]+)\//.exec(file)?.[1] ?? null;

/** A domain module: neither a verb's file, nor a surface, nor the registry. */
const DOMAIN = (file: string) => verbOf(file) === null && !SURFACES(file) && file !== REGISTRY;

describe("the import graph", () => {
	const files = sourceFiles();
	const imports = new Map(files.map((file) => [file, importsOf(file)]));
	const graph = new Map(files.map((file) => [file, imports.get(file)?.now ?? []]));
	const lazyGraph = new Map(files.map((file) => [file, [...(imports.get(file)?.now ?? []), ...(imports.get(file)?.lazy ?? [])]]));
	/** Each edge of a file, and whether it is lazy: `a → b`, `a ⇢ b`. */
	const runtimeEdges = files.flatMap((file) => [
		...(imports.get(file)?.now ?? []).map((target) => ({ from: srcName(file), to: srcName(target), arrow: "→" })),
		...(imports.get(file)?.lazy ?? []).map((target) => ({ from: srcName(file), to: srcName(target), arrow: "⇢" })),
	]);
	const spelled = (path: readonly string[]) =>
		path
			.map(srcName)
			.map((file, index, all) => {
				const next = all[index + 1];
				if (next === undefined) return file;
				const lazy = !runtimeEdges.some((edge) => edge.from === file && edge.to === next && edge.arrow === "→");
				return `${file} ${lazy ? "⇢" : "→"}`;
			})
			.join(" ");

	test("has no cycles", () => {
		expect(cycles(graph).map((component) => component.map(srcName))).toEqual([]);
	});

	test("has no cycles through lazy import() either (a verb's load() included)", () => {
		// Each cycle is shown as its shortest way round, `⇢` marking the lazy import that closes it.
		const found = cycles(lazyGraph).map((component) => `${component.length} files, e.g. ${spelled(shortestCycle(lazyGraph, component))}`);
		expect(found).toEqual([]);
	});

	test("src/contract/ is a leaf: it imports nothing but itself and plain text helpers", () => {
		const outside = files
			.filter((file) => srcName(file).startsWith("contract/"))
			.flatMap((file) => (graph.get(file) ?? []).map((target) => [srcName(file), srcName(target)] as const))
			.filter(([, target]) => !target.startsWith("contract/") && !target.startsWith("text/"));
		expect(outside).toEqual([]);
	});

	test("only the surfaces import the registry at run time (`import type` is free)", () => {
		const offenders = runtimeEdges.filter((edge) => edge.to === REGISTRY && edge.from !== REGISTRY && !SURFACES(edge.from));
		expect(offenders.map((edge) => `${edge.from} ${edge.arrow} ${edge.to}`)).toEqual([]);
	});

	test("nothing below the surfaces imports one (src/cli/, src/mcp/, invoke.ts, main.ts), not even a type", () => {
		const upward = files
			.filter((file) => !SURFACES(srcName(file)))
			.flatMap((file) =>
				everyImport(file)
					.map(srcName)
					.filter(SURFACES)
					.map((target) => `${srcName(file)} → ${target}`),
			);
		expect(upward).toEqual([]);
	});

	test("no verb imports another verb, not even a type", () => {
		const crossing = files.flatMap((file) => {
			const verb = verbOf(srcName(file));
			if (verb === null) return [];
			return everyImport(file)
				.map(srcName)
				.filter((target) => verbOf(target) !== null && verbOf(target) !== verb)
				.map((target) => `${srcName(file)} → ${target}`);
		});
		expect(crossing).toEqual([]);
	});

	test("only the registry and the surfaces load a verb's files at run time: the domain folders sit below the verbs", () => {
		const upward = runtimeEdges.filter((edge) => verbOf(edge.to) !== null && verbOf(edge.from) === null && edge.from !== REGISTRY && !SURFACES(edge.from));
		expect(upward.map((edge) => `${edge.from} ${edge.arrow} ${edge.to}`)).toEqual([]);
	});

	test("a domain module never imports a verb's files, not even a type: what a verb and a domain module share lives in the domain folder", () => {
		const upward = files
			.filter((file) => DOMAIN(srcName(file)))
			.flatMap((file) =>
				everyImport(file)
					.map(srcName)
					.filter((target) => verbOf(target) !== null)
					.map((target) => `${srcName(file)} → ${target}`),
			);
		expect(upward).toEqual([]);
	});
});

describe("the import-graph finder", () => {
	const a = join(SRC, "a.ts");
	const b = join(SRC, "b.ts");
	const c = join(SRC, "c.ts");

	test("sees a cycle when there is one", () => {
		const made = new Map([
			[a, runtimeImports(a, 'import { b } from "./b.ts";\nimport type { C } from "./c.ts";')],
			[b, runtimeImports(b, 'export { a } from "./a.ts";')],
			[c, runtimeImports(c, 'import { type A } from "./a.ts";\nconst later = () => import("./a.ts");')],
		]);
		expect(cycles(made).map((component) => component.map(srcName))).toEqual([["a.ts", "b.ts"]]);
	});

	test("sees a lazy cycle when there is one, and only real import() calls make one", () => {
		const texts = new Map([
			[a, 'import { b } from "./b.ts";'],
			[b, 'export const load = () => import("./c.ts").then((module) => module.verb);'],
			[c, 'import { a } from "./a.ts";\n// import("./b.ts") in a comment\nexport type Later = typeof import("./b.ts");\nconst said = "import(\'./b.ts\')";'],
		]);
		const both = (file: string) => {
			const found = importsOf(file, texts.get(file));
			return [...found.now, ...found.lazy];
		};
		expect(cycles(new Map([...texts.keys()].map((file) => [file, runtimeImports(file, texts.get(file))])))).toEqual([]);
		const lazy = new Map([...texts.keys()].map((file) => [file, both(file)]));
		const [component = []] = cycles(lazy);
		expect(component.map(srcName)).toEqual(["a.ts", "b.ts", "c.ts"]);
		expect(shortestCycle(lazy, component).map(srcName)).toEqual(["a.ts", "b.ts", "c.ts", "a.ts"]);
		expect(importsOf(c, texts.get(c)).lazy).toEqual([]);
	});

	test("everyImport reads type imports too", () => {
		const text =
			'import type { X } from "../x/schema.ts";\nimport { type Y } from "./y.ts";\ntype Z = typeof import("../z/z.ts");\nimport * as v from "valibot";';
		expect(everyImport(join(SRC, "verbs/w/w.ts"), text).map(srcName)).toEqual(["verbs/x/schema.ts", "verbs/w/y.ts", "verbs/z/z.ts"]);
	});

	test("everyImport reads an import for effect too", () => {
		expect(everyImport(join(SRC, "usage/u.ts"), 'import "../cli/effect.ts";\nconst said = "import \'../mcp/x.ts\'";').map(srcName)).toEqual(["cli/effect.ts"]);
	});
});
