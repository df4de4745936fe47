import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "./cli.ts";

/**
 * Reading the import graph of src/: which file imports which, and the
 * cycles in it. Bun's own scanner reads the imports, so an import in a
 * comment or a string, an `import type`, an `import { type A }` and a
 * `typeof import()` are what they are to Bun: nothing that runs.
 */
export const SRC = join(REPO_ROOT, "src");

/** A file as the tests name it: its path below src/. */
export function srcName(file: string): string {
	return relative(SRC, file);
}

export function sourceFiles(): string[] {
	const glob = new Bun.Glob("**/*.ts");
	return [...glob.scanSync({ cwd: SRC })].filter((path) => !path.endsWith(".d.ts")).map((path) => join(SRC, path));
}

const scanner = new Bun.Transpiler({ loader: "ts" });

/**
 * What one file imports, resolved to files (packages left out): `now` runs
 * when the file loads (value imports, re-exports, imports for effect); `lazy`
 * when the code calls it (`import("./x.ts")`, a verb's `load()`).
 */
export function importsOf(file: string, text = readFileSync(file, "utf8")): { now: string[]; lazy: string[] } {
	const now: string[] = [];
	const lazy: string[] = [];
	// The scanner reads a module, and a module has no `#!` line (src/main.ts does: it is also a script).
	for (const { path, kind } of scanner.scanImports(text.replace(/^#!.*/, ""))) {
		if (!path.startsWith(".")) continue;
		(kind === "dynamic-import" ? lazy : now).push(resolve(dirname(file), path));
	}
	return { now, lazy };
}

/** Static, value-carrying imports and re-exports of one file, resolved to files. */
export function runtimeImports(file: string, text?: string): string[] {
	return importsOf(file, text).now;
}

/**
 * Every file one file names in an import or re-export, types included
 * (`import type`, `typeof import()`), imports for effect (`import "./x.ts"`)
 * and every `import()`: what it depends on to compile, not only to run.
 */
export function everyImport(file: string, text = readFileSync(file, "utf8")): string[] {
	const statements = /^\s*(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/gms;
	const forEffect = /^\s*import\s*["']([^"']+)["']/gm;
	const calls = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
	return [...text.matchAll(statements), ...text.matchAll(forEffect), ...text.matchAll(calls)]
		.map((match) => match[1] ?? "")
		.filter((target) => target.startsWith("."))
		.map((target) => resolve(dirname(file), target));
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
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

/**
 * One shortest way round a component `cycles` found, from its first file back
 * to it (breadth first, inside the component): a cycle of sixty files reads
 * best as the few imports that close it.
 */
export function shortestCycle(graph: ReadonlyMap<string, readonly string[]>, component: readonly string[]): string[] {
	const inside = new Set(component);
	const start = component[0] ?? "";
	const cameFrom = new Map<string, string>();
	const queue = [start];
	for (let at = 0; at < queue.length; at++) {
		const node = queue[at] ?? "";
		for (const next of graph.get(node) ?? []) {
			if (!inside.has(next)) continue;
			if (next === start) {
				const path = [start];
				for (let step: string | undefined = node; step !== undefined && step !== start; step = cameFrom.get(step)) path.splice(1, 0, step);
				return [...path, start];
			}
			if (!cameFrom.has(next)) {
				cameFrom.set(next, node);
				queue.push(next);
			}
		}
	}
	return [start];
}
