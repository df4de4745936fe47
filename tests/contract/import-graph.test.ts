import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";

/**
 * The shape of the code: no import cycles, and `src/contract/` a leaf that
 * no verb, projection or domain module is imported into. Only imports that
 * run count: `import type` is erased, and a verb's `load()` is a dynamic
 * `import()` made on purpose so that its code loads only when it runs.
 */
const SRC = join(REPO_ROOT, "src");

function sourceFiles(): string[] {
	const glob = new Bun.Glob("**/*.ts");
	return [...glob.scanSync({ cwd: SRC })].filter((path) => !path.endsWith(".d.ts")).map((path) => join(SRC, path));
}

/** Static, value-carrying imports and re-exports of one file, resolved to files. */
export function runtimeImports(file: string, text = readFileSync(file, "utf8")): string[] {
	const found: string[] = [];
	const statement = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/gms;
	for (const match of text.matchAll(statement)) {
		const [, , typeOnly, clause = "", target = ""] = match;
		if (typeOnly || !target.startsWith(".")) continue;
		// `import { type A, type B } from` carries no value either.
		const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1];
		if (names?.split(",").every((name) => name.trim() === "" || name.trim().startsWith("type "))) continue;
		found.push(resolve(dirname(file), target));
	}
	// `import "x";` for its effects.
	for (const match of text.matchAll(/^\s*import\s+["']([^"']+)["'];/gm)) if (match[1]?.startsWith(".")) found.push(resolve(dirname(file), match[1]));
	return found;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
	let index = 0;
	const indices = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const visit = (node: string) => {
		indices.set(node, index);
		low.set(node, index);
		index++;
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!indices.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, indices.get(next) ?? 0));
		}
		if (low.get(node) === indices.get(node)) {
			const component: string[] = [];
			for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
				onStack.delete(member);
				component.push(member);
				if (member === node) break;
			}
			if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
		}
	};
	for (const node of graph.keys()) if (!indices.has(node)) visit(node);
	return found;
}

describe("the import graph", () => {
	const files = sourceFiles();
	const graph = new Map(files.map((file) => [file, runtimeImports(file)]));
	const name = (file: string) => relative(SRC, file);

	test("has no cycles", () => {
		expect(cycles(graph).map((component) => component.map(name))).toEqual([]);
	});

	test("src/contract/ is a leaf: it imports nothing but itself and plain text helpers", () => {
		const outside = files
			.filter((file) => name(file).startsWith("contract/"))
			.flatMap((file) => (graph.get(file) ?? []).map((target) => [name(file), name(target)] as const))
			.filter(([, target]) => !target.startsWith("contract/") && !target.startsWith("text/"));
		expect(outside).toEqual([]);
	});

	test("the finder sees a cycle when there is one", () => {
		const a = join(SRC, "a.ts");
		const b = join(SRC, "b.ts");
		const c = join(SRC, "c.ts");
		const made = new Map([
			[a, runtimeImports(a, 'import { b } from "./b.ts";\nimport type { C } from "./c.ts";')],
			[b, runtimeImports(b, 'export { a } from "./a.ts";')],
			[c, runtimeImports(c, 'import { type A } from "./a.ts";\nconst later = () => import("./a.ts");')],
		]);
		expect(cycles(made).map((component) => component.map(name))).toEqual([["a.ts", "b.ts"]]);
	});
});
