/**
 * The scope glob dialect. Paths are repository-relative with `/`.
 *
 * - A pattern with a `/` is anchored at the repository root (`apps/web/**`);
 *   one without a `/` matches the basename at any depth (`*.md`, `Makefile`),
 *   as in .gitignore; a leading `/` anchors a slash-less one (`/Makefile`).
 * - `dir/` means `dir/**`; `**` spans any number of directories, including
 *   none (`src/**\/x.ts` matches `src/x.ts`); `*` and `?` never cross `/`;
 *   `[abc]`, `[!abc]`, `{a,b}` as in a shell.
 * - A pattern whose last segment is a plain name also covers everything
 *   beneath it, so `apps/web` or `docs` names a directory the way a person
 *   means it. Failing to classify a path would skip a scope gate; covering a
 *   little more only runs one.
 *
 * Hand-written rather than a dependency: the dialect is small, its rules are
 * ours (anchoring, the plain-name rule), and scopes compile into one index
 * that classifies tens of thousands of paths against many scopes quickly.
 * Matching is linear in path × pattern length (see `glob-match.ts`).
 */

import { isRecord } from "../contract/record.ts";
import { clip } from "../text/clip.ts";
import { classEnd, compilePath, compileSegment, parseSegment, type SegmentsTest, type SegmentTest } from "./glob-match.ts";

/** Brace expansion beyond these is a typo or an attack, not a scope. */
const MAX_ALTERNATIVES = 256;
const MAX_BRACE_DEPTH = 8;
/** Longer than any path a file system holds: such a pattern can only be a mistake. */
export const MAX_PATTERN_LENGTH = 4096;

export type PathTest = (path: string) => boolean;

/** One sentence explaining why a pattern is invalid, or null when it is fine. */
export function globProblem(pattern: string): string | null {
	if (pattern.trim() === "") return "the pattern is empty";
	if (pattern.trim() !== pattern) return "it starts or ends with whitespace, which no intended path does";
	if (/^[A-Za-z]:([\\/]|$)/.test(pattern)) return "it is an absolute Windows path; patterns are relative to the repository root";
	if (pattern.includes("\\")) return "it contains a backslash; write paths with `/` (escapes are not supported)";
	if (pattern.startsWith("~")) return "it starts with `~`; patterns are relative to the repository root";
	if (pattern === "/") return "`/` alone names no path; write `**` for everything";
	const expanded = expandGlob(pattern);
	if (typeof expanded === "string") return expanded;
	for (const alternative of expanded) {
		const problem = alternativeProblem(alternative);
		if (problem) return problem;
	}
	return null;
}

/** Compile a pattern once; throws on an invalid one (validate configs with `globProblem` first). */
export function compileGlob(pattern: string): PathTest {
	return compileGlobs([pattern]);
}

/** A test that holds when any of the patterns matches; throws on an invalid one. */
export function compileGlobs(patterns: readonly string[]): PathTest {
	const lookup = buildIndex([piecesOf(patterns)]);
	return (path) => lookup(path).length > 0;
}

export interface ScopeDefinition {
	paths: readonly string[];
	neutral: boolean;
	// `| undefined`: the validated config types its optional keys that way.
	gate?: string | undefined;
}

export interface CompiledScope {
	name: string;
	neutral: boolean;
	gate?: string;
}

/** The configured scopes, compiled once, in declaration order. */
export interface ScopeClassifier {
	readonly scopes: readonly CompiledScope[];
	/** Indices (into `scopes`) of every scope covering the path, ascending. */
	scopesOf(path: string): number[];
}

/**
 * Compile every scope into one shared index, so that classifying a path
 * costs a walk down its own segments plus the few rules that can apply,
 * not one test per pattern per scope. Throws on an invalid pattern.
 */
export function compileScopes(scopes: Readonly<Record<string, ScopeDefinition>>): ScopeClassifier {
	const entries = Object.entries(scopes);
	const compiled: CompiledScope[] = entries.map(([name, scope]) => ({
		name,
		neutral: scope.neutral,
		...(scope.gate !== undefined ? { gate: scope.gate } : {}),
	}));
	return { scopes: compiled, scopesOf: buildIndex(entries.map(([, scope]) => piecesOf(scope.paths))) };
}

/**
 * Problems with the scope globs of a raw (unvalidated) config document, for
 * the config loader to place at their lines. Reads defensively: shapes that
 * are wrong in other ways are the schema's to report.
 */
export function scopeGlobIssues(rawScopes: unknown): { scope: string; index: number; message: string }[] {
	if (!isRecord(rawScopes)) return [];
	const issues: { scope: string; index: number; message: string }[] = [];
	for (const [scope, table] of Object.entries(rawScopes)) {
		const paths: unknown = typeof table === "object" && table !== null ? (table as Record<string, unknown>).paths : undefined;
		if (!Array.isArray(paths)) continue;
		paths.forEach((pattern: unknown, index) => {
			if (typeof pattern !== "string") return;
			const problem = globProblem(pattern);
			if (problem) issues.push({ scope, index, message: `\`scopes.${clip(scope)}.paths\` entry \`${clip(pattern)}\` is not a valid glob: ${problem}` });
		});
	}
	return issues;
}

// ── Matching ────────────────────────────────────────────────────────────────

/**
 * How one brace-free alternative is matched, cheapest way first. Most scope
 * patterns are `dir/**`, exact paths or `*.ext`: segment and string
 * comparisons answer those; the segment-wise matcher is the last resort.
 */
type Piece =
	| { kind: "all" }
	| { kind: "exact"; segments: string[] } // an anchored plain path: itself or anything beneath
	| { kind: "beneath"; segments: string[] } // `dir/**`: anything strictly beneath dir
	| { kind: "name"; name: string } // an unanchored plain name: any segment equals it
	| { kind: "suffix"; suffix: string } // `*.ext` at any depth: the basename ends with it
	| { kind: "base"; test: SegmentTest } // another unanchored wildcard segment: the basename matches
	| { kind: "full"; lead: string[]; test: SegmentsTest }; // the whole path matches; `lead` = its literal leading segments

function piecesOf(patterns: readonly string[]): Piece[] {
	return patterns.flatMap((pattern) => {
		const problem = globProblem(pattern);
		if (problem) throw new Error(`invalid glob \`${clip(pattern)}\`: ${problem}`);
		return (expandGlob(pattern) as string[]).map(pieceOf);
	});
}

function pieceOf(alternative: string): Piece {
	const body = alternative.startsWith("/") ? alternative.slice(1) : alternative;
	const path = body.endsWith("/") ? `${body}**` : body;
	const anchored = alternative.startsWith("/") || path.includes("/");
	const segments = path.split("/");
	if (path === "**") return { kind: "all" };
	// `**/x` is the anchored spelling of the slash-less `x`.
	const last = segments.length === 2 && segments[0] === "**" ? segments[1] : !anchored ? path : undefined;
	if (last !== undefined && last !== "**") {
		if (isPlain(last)) return { kind: "name", name: last };
		if (last.startsWith("*") && isPlain(last.slice(1))) return { kind: "suffix", suffix: last.slice(1) };
		return { kind: "base", test: compileSegment(last) };
	}
	if (segments.every(isPlain)) return { kind: "exact", segments };
	const firstWild = segments.findIndex((segment) => !isPlain(segment));
	const lead = segments.slice(0, firstWild);
	if (firstWild === segments.length - 1 && segments[firstWild] === "**") return { kind: "beneath", segments: lead };
	return { kind: "full", lead, test: compilePath(alternative) };
}

function isPlain(segment: string): boolean {
	return !/[*?[]/.test(segment);
}

/** A rule that applies once a path's leading segments reached its node of the tree. */
type TreeRule = { scope: number; kind: "self_or_beneath" | "beneath" } | { scope: number; kind: "full"; test: SegmentsTest };

interface TreeNode {
	children: Map<string, TreeNode>;
	rules: TreeRule[];
}

/**
 * The index: anchored pieces hang in a tree of literal leading segments;
 * basename pieces sit in maps keyed by name and by extension; only
 * wildcard-led patterns are tried on every path. Returns the lookup.
 */
function buildIndex(scopePieces: readonly Piece[][]): (path: string) => number[] {
	const root: TreeNode = { children: new Map(), rules: [] };
	const everything: number[] = [];
	const names = new Map<string, number[]>();
	const suffixesByExtension = new Map<string, { scope: number; suffix: string }[]>();
	const looseSuffixes: { scope: number; suffix: string }[] = [];
	const baseTests: { scope: number; test: SegmentTest }[] = [];
	const pathTests: { scope: number; test: SegmentsTest }[] = [];
	const nodeAt = (segments: readonly string[]): TreeNode => {
		let node = root;
		for (const segment of segments) {
			let child = node.children.get(segment);
			if (!child) {
				child = { children: new Map(), rules: [] };
				node.children.set(segment, child);
			}
			node = child;
		}
		return node;
	};
	const push = <K, T>(map: Map<K, T[]>, key: K, value: T) => {
		const list = map.get(key);
		if (list) list.push(value);
		else map.set(key, [value]);
	};
	scopePieces.forEach((pieces, scope) => {
		for (const piece of pieces) {
			if (piece.kind === "all") everything.push(scope);
			else if (piece.kind === "exact") nodeAt(piece.segments).rules.push({ scope, kind: "self_or_beneath" });
			else if (piece.kind === "beneath") nodeAt(piece.segments).rules.push({ scope, kind: "beneath" });
			else if (piece.kind === "name") push(names, piece.name, scope);
			else if (piece.kind === "suffix") {
				const dot = piece.suffix.lastIndexOf(".");
				if (dot < 0) looseSuffixes.push({ scope, suffix: piece.suffix });
				else push(suffixesByExtension, piece.suffix.slice(dot), { scope, suffix: piece.suffix });
			} else if (piece.kind === "base") baseTests.push({ scope, test: piece.test });
			else if (piece.lead.length > 0) nodeAt(piece.lead).rules.push({ scope, kind: "full", test: piece.test });
			else pathTests.push({ scope, test: piece.test });
		}
	});

	// One flag per scope, reused across calls (lookups are synchronous).
	const hit = new Uint8Array(scopePieces.length);
	return (path) => {
		hit.fill(0);
		for (const scope of everything) hit[scope] = 1;
		const segments = path.split("/");
		const base = segments[segments.length - 1] ?? path;
		let node: TreeNode | undefined = root;
		for (let depth = 0; depth < segments.length; depth++) {
			const segment = segments[depth] ?? "";
			const named = names.get(segment);
			if (named) for (const scope of named) hit[scope] = 1;
			node = node?.children.get(segment);
			if (!node) continue;
			const below = depth < segments.length - 1;
			for (const rule of node.rules) {
				if (hit[rule.scope]) continue;
				if (rule.kind === "self_or_beneath" || (rule.kind === "beneath" && below) || (rule.kind === "full" && rule.test(segments))) {
					hit[rule.scope] = 1;
				}
			}
		}
		const dot = base.lastIndexOf(".");
		const bySuffix = dot < 0 ? undefined : suffixesByExtension.get(base.slice(dot));
		if (bySuffix) for (const { scope, suffix } of bySuffix) if (!hit[scope] && base.endsWith(suffix)) hit[scope] = 1;
		for (const { scope, suffix } of looseSuffixes) if (!hit[scope] && base.endsWith(suffix)) hit[scope] = 1;
		for (const { scope, test } of baseTests) if (!hit[scope] && test(base)) hit[scope] = 1;
		for (const { scope, test } of pathTests) if (!hit[scope] && test(segments)) hit[scope] = 1;
		const scopes: number[] = [];
		for (let scope = 0; scope < hit.length; scope++) if (hit[scope]) scopes.push(scope);
		return scopes;
	};
}

// ── Brace expansion ─────────────────────────────────────────────────────────

/**
 * Expand `{a,b}` into brace-free alternatives, each compiled with its own
 * anchoring (`{*.md,docs/**}` means a basename pattern or an anchored one).
 * Returns a problem sentence for unbalanced braces or brackets.
 */
export function expandGlob(pattern: string): string[] | string {
	let position = 0;
	const parseSequence = (depth: number): string[] | string => {
		if (depth > MAX_BRACE_DEPTH) return `its braces nest deeper than ${MAX_BRACE_DEPTH} levels`;
		const inBraces = depth > 0;
		let results = [""];
		while (position < pattern.length) {
			// Read left to right: a problem early in a long pattern is still the one named.
			if (position >= MAX_PATTERN_LENGTH) return `it is ${pattern.length} characters long; no path is longer than ${MAX_PATTERN_LENGTH}`;
			const char = pattern[position] ?? "";
			if (inBraces && (char === "," || char === "}")) return results;
			if (char === "}") return "it has a `}` without a matching `{`";
			if (char === "[") {
				const end = classEnd(pattern, position);
				if (end < 0) return "it has a `[` without a matching `]`";
				const text = pattern.slice(position, end + 1);
				results = results.map((prefix) => prefix + text);
				position = end + 1;
				continue;
			}
			if (char === "{") {
				position++;
				const alternatives: string[] = [];
				for (;;) {
					const inner = parseSequence(depth + 1);
					if (typeof inner === "string") return inner;
					alternatives.push(...inner);
					if (alternatives.length > MAX_ALTERNATIVES) return `its braces expand to more than ${MAX_ALTERNATIVES} alternatives`;
					const closer = pattern[position];
					if (closer === undefined) return "it has a `{` without a matching `}`";
					position++;
					if (closer === "}") break;
				}
				if (results.length * alternatives.length > MAX_ALTERNATIVES) {
					return `its braces expand to more than ${MAX_ALTERNATIVES} alternatives`;
				}
				results = results.flatMap((prefix) => alternatives.map((alternative) => prefix + alternative));
				continue;
			}
			results = results.map((prefix) => prefix + char);
			position++;
		}
		return results;
	};
	return parseSequence(0);
}

// ── Compilation of one brace-free alternative ───────────────────────────────

function alternativeProblem(alternative: string): string | null {
	const body = alternative.startsWith("/") ? alternative.slice(1) : alternative;
	if (body === "") return "an alternative in its braces is empty or only `/`";
	const segments = (body.endsWith("/") ? body.slice(0, -1) : body).split("/");
	if (segments.includes("..")) return "it has a `..` segment; patterns cannot leave the repository";
	if (segments.includes(".")) return "it has a `.` segment; write the path without `./`";
	if (segments.includes("")) return "it has an empty path segment (`//`)";
	for (let index = 0; index < body.length; index++) {
		if (body[index] !== "[") continue;
		const end = classEnd(body, index);
		if (end < 0) break;
		if (body.slice(index + 1, end).includes("/")) return "a `[…]` class cannot match `/`; write the directory out";
		index = end;
	}
	for (const segment of segments) {
		const parsed = parseSegment(segment);
		if (typeof parsed === "string") return parsed;
	}
	return null;
}

/**
 * The pattern of a folder and everything below it (`dir/**`) for a folder
 * whose name may hold what the dialect reads as syntax (`[`, `*`, `{`…):
 * each such character in a class of its own (`[[]`). Null when the dialect
 * cannot say it at all (a backslash, whitespace at an end): the caller
 * proposes no pattern then.
 */
export function folderGlob(folder: string): string | null {
	const pattern = `${folder.replace(/[[\]*?{},]/g, (character) => `[${character}]`)}/**`;
	return globProblem(pattern) === null && compileGlob(pattern)(`${folder}/x`) ? pattern : null;
}
