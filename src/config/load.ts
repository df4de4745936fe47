import { join } from "node:path";
import { parse, TomlError } from "smol-toml";
import * as v from "valibot";
import type { Narration } from "../contract/context.ts";
import { issueSentence, pathOf } from "../contract/issues.ts";
import { isRecord } from "../contract/record.ts";
import { unwrapSchema } from "../contract/schema-walk.ts";
import { CODE_MARKER } from "../scopes/classify.ts";
import { scopeGlobIssues } from "../scopes/glob.ts";
import { clip } from "../text/clip.ts";
import { firstLineOfError } from "../text/first-line.ts";
import { nearest } from "../text/suggest.ts";
import type { ConfigIssue } from "./issue.ts";
import { type KeyPositions, positionOf } from "./positions.ts";

export type { ConfigIssue };

import { errorCode } from "../platform/error-code.ts";
import { CommandList, DiscernConfig, JobTable, KNOWN_JOB_STAGES, knownStage, RESERVED_NAMES, STAGES } from "./schema.ts";

export const CONFIG_FILE = "discern.toml";
/** A config larger than this is a mistake, not a config; refuse before parsing. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** How a TOML syntax error's message starts (its line is smol-toml's own). */
const TOML_SYNTAX = "TOML syntax: ";

export type ConfigLoad =
	| { state: "missing"; path: string }
	| { state: "invalid"; path: string; issues: ConfigIssue[] }
	/** `bytes` is exactly what was parsed: the gate checks it against the committed blob. */
	| { state: "valid"; path: string; config: DiscernConfig; bytes: Uint8Array };

/** Load and validate `discern.toml`; `narrate` (--verbose) hears which file was read and what it held. */
export async function loadConfig(root: string, narrate?: (event: Narration) => void): Promise<ConfigLoad> {
	const load = await readConfig(root);
	narrate?.({ type: "config", path: load.path, state: load.state });
	return load;
}

async function readConfig(root: string): Promise<ConfigLoad> {
	const path = join(root, CONFIG_FILE);
	const file = Bun.file(path);
	let bytes: Uint8Array;
	try {
		if (file.size > MAX_CONFIG_BYTES) {
			return { state: "invalid", path, issues: [{ message: `${CONFIG_FILE} is ${file.size} bytes; the limit is ${MAX_CONFIG_BYTES} bytes` }] };
		}
		bytes = await file.bytes();
	} catch (error) {
		if (isMissing(error)) return { state: "missing", path };
		return { state: "invalid", path, issues: [{ message: `cannot read ${CONFIG_FILE}: ${clip(String(error))}` }] };
	}
	const outcome = await parseConfigPlaced(bytes);
	return outcome.ok ? { state: "valid", path, config: outcome.config, bytes } : { state: "invalid", path, issues: outcome.issues };
}

/** `syntax`: the text is not TOML at all, so nothing in it can be placed, checked key by key or edited. */
export type ParseOutcome = { ok: true; config: DiscernConfig } | { ok: false; issues: ConfigIssue[]; syntax?: true };

/**
 * Parse and validate a config, reporting every problem at once.
 * `placeKeys` indexes where each key is written (edit/toml.ts's
 * `indexKeyPositions`): given, each problem names its line; a caller that
 * shows problems to a person and has not loaded the TOML editor takes
 * `parseConfigPlaced` instead.
 */
export function parseConfig(bytes: Uint8Array | string, placeKeys?: (source: string) => KeyPositions): ParseOutcome {
	const decoded = decode(bytes);
	if (!decoded.ok) return { ok: false, issues: [decoded.issue] };
	const source = decoded.text;
	let raw: unknown;
	try {
		raw = parse(source);
	} catch (error) {
		if (error instanceof TomlError) {
			return { ok: false, syntax: true, issues: [{ message: `${TOML_SYNTAX}${clip(firstLineOfError(error))}`, line: error.line, col: error.column }] };
		}
		return { ok: false, syntax: true, issues: [{ message: `${TOML_SYNTAX}${clip(error instanceof Error ? error.message : String(error))}` }] };
	}
	// Positions take a second parse with a syntax tree: only a config with problems needs them.
	const first = validate(raw, new Map());
	return first.ok || !placeKeys ? first : validate(raw, placeKeys(source));
}

/** `parseConfig`, each problem with its line: the TOML editor is loaded only for a config that has any. */
export async function parseConfigPlaced(bytes: Uint8Array | string): Promise<ParseOutcome> {
	const outcome = parseConfig(bytes);
	if (outcome.ok || outcome.syntax) return outcome;
	const { indexKeyPositions } = await import("../edit/toml.ts");
	return parseConfig(bytes, indexKeyPositions);
}

function validate(raw: unknown, positions: KeyPositions): ParseOutcome {
	const misplaced = arraysWhereTablesBelong(raw, DiscernConfig, []);
	const issues: ConfigIssue[] = misplaced.map((path) => {
		const at = positionOf(positions, path);
		return { message: `\`${keyOf(path)}\` must be a table, got array`, key: keyOf(path), ...(at ? { line: at.line, col: at.col } : {}) };
	});
	const result = v.safeParse(DiscernConfig, withoutPaths(raw, misplaced));
	if (!result.success) issues.push(...result.issues.flatMap((issue) => explain(issue, positions)));
	issues.push(...crossChecks(raw, positions));
	if (issues.length > 0 || !result.success) return { ok: false, issues: issues.sort(byLine) };
	return { ok: true, config: result.output };
}

function decode(bytes: Uint8Array | string): { ok: true; text: string } | { ok: false; issue: ConfigIssue } {
	if (typeof bytes === "string") return { ok: true, text: bytes };
	const nul = bytes.indexOf(0);
	if (nul >= 0) {
		const line = bytes.subarray(0, nul).filter((byte) => byte === 10).length + 1;
		return { ok: false, issue: { message: `${CONFIG_FILE} contains binary data (a NUL byte); it must be UTF-8 text`, line } };
	}
	try {
		return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
	} catch {
		return { ok: false, issue: { message: `${CONFIG_FILE} is not valid UTF-8 text` } };
	}
}

/** A dotted key for a message or an issue's `key`, each part clipped (a key is echoed back like any value). */
function keyOf(path: readonly (string | number)[]): string {
	return path.map((part) => clip(String(part))).join(".");
}

/** One Valibot issue as config issues; a job value that is a table is explained by the table's own rules. */
function explain(issue: v.BaseIssue<unknown>, positions: KeyPositions): ConfigIssue[] {
	const path = pathOf(issue);
	const jobShape = issue.type === "union" && path[0] === "jobs" && path.length === 2 ? shapeSchema(issue.input) : null;
	if (jobShape) {
		const inner = v.safeParse(jobShape, issue.input);
		if (!inner.success) {
			return inner.issues.flatMap((nested) => explain({ ...nested, path: [...(issue.path ?? []), ...(nested.path ?? [])] } as v.BaseIssue<unknown>, positions));
		}
	}
	const key = keyOf(path);
	const at = positionOf(positions, path);
	const where = at ? { line: at.line, col: at.col } : {};
	if (issue.type === "strict_object" && issue.expected === "never") {
		const unknown = String(path.at(-1));
		const parent = path.slice(0, -1);
		const suggestion = nearest(unknown, knownKeysAt(parent));
		const inTable = parent.length > 0 ? ` in [${keyOf(parent)}]` : "";
		return [
			{
				message: `unknown key \`${clip(unknown)}\`${inTable}${suggestion ? `; did you mean \`${clip(suggestion)}\`?` : ""}`,
				key,
				...where,
				...(suggestion ? { suggestion } : {}),
			},
		];
	}
	return [{ message: issueSentence(issue, { objectNoun: "table", name: (p) => `\`${p.join(".")}\`` }), key, ...where }];
}

/**
 * Rules that span keys: custom jobs need a stage, pre-authorized scopes must
 * exist. They read the raw document defensively, so that they still speak
 * when other parts of the file failed validation.
 */
function crossChecks(raw: unknown, positions: KeyPositions): ConfigIssue[] {
	const issues: ConfigIssue[] = [];
	const named: [string, Record<string, unknown>][] = [
		["jobs", tableAt(raw, "jobs")],
		["scopes", tableAt(raw, "scopes")],
		["standards", tableAt(raw, "standards")],
		["worktree.resources", tableAt(tableAt(raw, "worktree"), "resources")],
	];
	for (const [section, table] of named) {
		for (const reserved of RESERVED_NAMES.filter((name) => Object.hasOwn(table, name))) {
			const at = positionOf(positions, [...section.split("."), reserved]);
			issues.push({
				message: `\`${reserved}\` is a reserved name and cannot name an entry of [${section}]; rename it`,
				key: `${section}.${reserved}`,
				...(at ? { line: at.line, col: at.col } : {}),
			});
		}
	}
	// `discern standards pin` is the sub-command that pins: a standard of that name could never be named alone.
	if (Object.hasOwn(tableAt(raw, "standards"), "pin")) {
		const at = positionOf(positions, ["standards", "pin"]);
		issues.push({
			message: "`pin` cannot name a standard: `discern standards pin` is the sub-command that pins; rename it",
			key: "standards.pin",
			...(at ? { line: at.line, col: at.col } : {}),
		});
	}
	const jobs = tableAt(raw, "jobs");
	for (const name of Object.keys(jobs)) {
		if ((RESERVED_NAMES as readonly string[]).includes(name)) continue;
		const table = tableAt(jobs, name);
		if (knownStage(name) || table.stage !== undefined) continue;
		// `stag = "test"`: the unknown key's own issue (with its "did you mean") says it better.
		if (Object.keys(table).some((key) => !(key in JobTable.entries))) continue;
		const at = positionOf(positions, ["jobs", name]);
		issues.push({
			message: `job \`${clip(name)}\` is not a known job, so it must declare its stage: [jobs.${clip(name)}] with run = "…" and stage = one of ${STAGES.join(", ")} (known jobs: ${Object.keys(KNOWN_JOB_STAGES).join(", ")})`,
			key: keyOf(["jobs", name]),
			...(at ? { line: at.line, col: at.col } : {}),
		});
	}
	for (const problem of scopeGlobIssues(tableAt(raw, "scopes"))) {
		const at = positionOf(positions, ["scopes", problem.scope, "paths"]);
		issues.push({ message: problem.message, key: keyOf(["scopes", problem.scope, "paths", problem.index]), ...(at ? { line: at.line, col: at.col } : {}) });
	}
	if (Object.hasOwn(tableAt(raw, "scopes"), CODE_MARKER)) {
		const at = positionOf(positions, ["scopes", CODE_MARKER]);
		issues.push({
			message: `\`${CODE_MARKER}\` cannot name a scope: impact's \`has\` uses it to mean "a non-neutral path changed"`,
			key: `scopes.${CODE_MARKER}`,
			...(at ? { line: at.line, col: at.col } : {}),
		});
	}
	const scopes = Object.keys(tableAt(raw, "scopes"));
	const preAuthorized = tableAt(raw, "acceptance").pre_authorized;
	(Array.isArray(preAuthorized) ? preAuthorized : []).forEach((scope: unknown, index) => {
		if (typeof scope !== "string" || scopes.includes(scope)) return;
		const suggestion = nearest(scope, scopes);
		const at = positionOf(positions, ["acceptance", "pre_authorized"]);
		issues.push({
			message: `\`acceptance.pre_authorized\` names scope \`${clip(scope)}\`, which is not declared under [scopes]${suggestion ? `; did you mean \`${clip(suggestion)}\`?` : ""}`,
			key: `acceptance.pre_authorized.${index}`,
			...(at ? { line: at.line, col: at.col } : {}),
			...(suggestion ? { suggestion } : {}),
		});
	});
	return issues;
}

/**
 * Valibot accepts an array where an object is expected (its indices become
 * keys), so TOML's \`[[gate]]\` or \`jobs = ["…"]\` would read as odd keys or,
 * worse, as a job named "0". Find those places first and report them plainly.
 */
function arraysWhereTablesBelong(value: unknown, schema: v.GenericSchema, path: string[]): string[][] {
	const inner = unwrapSchema(schema);
	if (!objectEntries(inner) && inner.type !== "record") return [];
	if (Array.isArray(value)) return [path];
	if (typeof value !== "object" || value === null) return [];
	return Object.entries(value).flatMap(([key, child]) => {
		const next = childSchema(inner, key);
		return next ? arraysWhereTablesBelong(child, next, [...path, key]) : [];
	});
}

/** A copy of the document with the given paths removed, so validation does not report them twice. */
function withoutPaths(raw: unknown, paths: readonly string[][]): unknown {
	if (paths.length === 0) return raw;
	const copy = structuredClone(raw) as Record<string, unknown>;
	for (const path of paths) {
		let parent: Record<string, unknown> | undefined = copy;
		for (const key of path.slice(0, -1)) parent = parent?.[key] as Record<string, unknown> | undefined;
		if (parent) delete parent[path.at(-1) ?? ""];
	}
	return copy;
}

function tableAt(value: unknown, key: string): Record<string, unknown> {
	const child = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
	return isRecord(child) ? child : {};
}

function byLine(a: ConfigIssue, b: ConfigIssue): number {
	return (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER) || (a.col ?? 0) - (b.col ?? 0);
}

/** Valid keys of the table at `path`, for "did you mean". */
function knownKeysAt(path: readonly (string | number)[]): string[] {
	let schema: v.GenericSchema = DiscernConfig;
	for (const segment of path) {
		const next = childSchema(schema, String(segment));
		if (!next) return [];
		schema = next;
	}
	return keysOf(schema);
}

function keysOf(schema: v.GenericSchema): string[] {
	const inner = unwrapSchema(schema);
	const entries = objectEntries(inner);
	if (entries) return Object.keys(entries);
	if (inner.type === "union") return (inner as unknown as { options: v.GenericSchema[] }).options.flatMap(keysOf);
	return [];
}

function childSchema(schema: v.GenericSchema, key: string): v.GenericSchema | undefined {
	const inner = unwrapSchema(schema);
	const entries = objectEntries(inner);
	if (entries) return entries[key];
	if (inner.type === "record") return (inner as unknown as { value: v.GenericSchema }).value;
	if (inner.type === "union") {
		for (const option of (inner as unknown as { options: v.GenericSchema[] }).options) {
			const found = childSchema(option, key);
			if (found) return found;
		}
	}
	return undefined;
}

function objectEntries(schema: v.GenericSchema): Record<string, v.GenericSchema> | undefined {
	return (schema as unknown as { entries?: Record<string, v.GenericSchema> }).entries;
}

/** The branch of a job value a person evidently meant, judged by the shape they wrote. */
function shapeSchema(value: unknown): v.GenericSchema | null {
	if (Array.isArray(value)) return CommandList;
	if (typeof value === "object" && value !== null && !(value instanceof Date)) return JobTable;
	return null;
}

function isMissing(error: unknown): boolean {
	return errorCode(error) === "ENOENT";
}
