import { parse as parseToml } from "smol-toml";
import { KNOWN_JOB_STAGES, type Stage } from "../config/schema.ts";
import type { Folder, FolderReader } from "./folder.ts";
import type { WorktreeNeeds } from "./installs.ts";

/** The only job names setup proposes (before a suffix), in the order they are written (which is stage order). */
export const JOB_NAMES = ["format", "build", "lint", "typecheck", "test"] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** The stage of each name setup proposes: the config's own known stages, never a second copy. */
export const JOB_STAGES = Object.fromEntries(JOB_NAMES.map((name) => [name, KNOWN_JOB_STAGES[name]])) as Readonly<Record<JobName, Stage>>;

export type NodeManager = "npm" | "pnpm" | "yarn" | "bun";
export type PythonManager = "uv" | "poetry" | "pdm" | "hatch" | "pip";
export type PackageManager = NodeManager | PythonManager;

/** One job a stack proposes in its own folder, before it is named and placed. */
export interface StackJob {
	name: JobName;
	run: string;
	/** Names the file that led to it. */
	reason: string;
	/** Set when it is not the name's own stage: a format script that only checks is a check-stage job. */
	stage?: Stage;
}

/** A package of a workspace: it becomes a `[scopes.<name>]`. */
export interface WorkspaceMember {
	/** Folder relative to the repository root. */
	dir: string;
	/** The package's own name (from its manifest), or the folder's. */
	name: string;
	gate?: string;
	reason: string;
}

/**
 * A folder a proposed job writes in its project, or the install its tools
 * come from fills (outputs.ts): a line for the root .gitignore unless git
 * already ignores it there.
 */
export interface ToolOutput {
	/** The line, for the project's folder: `.pytest_cache/` ignores it at any depth; `/target/` only there. */
	pattern: string;
	/** Files the tool writes there, relative to the project's folder: git is asked whether they are ignored already. */
	probes: string[];
	/** The jobs that write it; none: the install the jobs run from. */
	jobs: JobName[];
	/** What writes it, e.g. `pytest keeps its cache there`. */
	why: string;
}

export interface StackFinding {
	kind: "node" | "rust" | "go" | "python";
	evidence: string;
	manager?: PackageManager;
	jobs: StackJob[];
	/** The folders its jobs write (or its install fills), which a developer of the stack ignores. */
	outputs: ToolOutput[];
	/** What a new worktree of it needs before its jobs can start: the install, and a cache to seed it with. */
	needs: WorktreeNeeds;
	/** From the manifest, when it names the project. */
	projectName: string | null;
	members: WorkspaceMember[];
}

export type Detector = (folder: Folder, reader: FolderReader) => Promise<StackFinding | null>;

/** Several tools for one job in one stack run one after the other; the reasons are listed together. */
export function combine(name: JobName, found: ReadonlyArray<{ run: string; reason: string } | null>): StackJob[] {
	const present = found.filter((item): item is { run: string; reason: string } => item !== null);
	if (present.length === 0) return [];
	return [{ name, run: present.map((item) => item.run).join(" && "), reason: present.map((item) => item.reason).join("; ") }];
}

/** A parsed TOML document, or null when it does not parse (callers fall back to a header scan). */
export function tomlOf(text: string | null): Record<string, unknown> | null {
	if (text === null) return null;
	try {
		return parseToml(text) as Record<string, unknown>;
	} catch {
		return null;
	}
}

export function stringsOf(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * An INI-style file (setup.cfg, tox.ini, .flake8) as setuptools reads it:
 * `[section]` headers; `key = value` or `key: value`, keys without regard to
 * case, values trimmed; comments (`#`, `;`) and continuation lines (indented:
 * a list) skipped, so a key whose value is only continued reads as empty.
 */
function iniSections(text: string): Map<string, Map<string, string>> {
	const sections = new Map<string, Map<string, string>>();
	let current: Map<string, string> | null = null;
	for (const line of text.split(/\r?\n/)) {
		const header = /^\s*\[([^\]]+)\]/.exec(line);
		if (header) {
			const name = header[1]?.trim() ?? "";
			current = sections.get(name) ?? new Map();
			sections.set(name, current);
			continue;
		}
		if (!current || /^\s*[#;]/.test(line) || /^\s/.test(line)) continue;
		const pair = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(line);
		const key = pair?.[1]?.toLowerCase();
		if (key !== undefined && !current.has(key)) current.set(key, (pair?.[2] ?? "").trim());
	}
	return sections;
}

/** An INI-style file declares `[section]`. */
export function iniHasSection(text: string | null, section: string): boolean {
	return text !== null && iniSections(text).has(section);
}

/** One value of an INI-style file (see iniSections); null when absent or empty. */
export function iniValue(text: string | null, section: string, key: string): string | null {
	return (text === null ? null : iniSections(text).get(section)?.get(key.toLowerCase())) || null;
}

/** Folders a wildcard never enters: installed dependencies, build output, version control. */
export const NEVER_ENTERED = new Set([
	"node_modules",
	"bower_components",
	"vendor",
	"target",
	"dist",
	"build",
	"out",
	"coverage",
	"venv",
	"env",
	"__pycache__",
	"site-packages",
	"testdata",
	"fixtures",
	"third_party",
	"third-party",
	"external",
	"examples",
	"example",
]);

const MAX_MEMBERS = 500;
const MAX_GLOBSTAR_DEPTH = 4;

/**
 * The folders a workspace's member patterns name (`packages/*`, `apps/**`,
 * `crates/core`, `!packages/legacy`), keeping those that hold `marker`.
 * Patterns are data from a manifest: `..` and absolute paths lead nowhere.
 */
export async function expandMembers(reader: FolderReader, base: string, patterns: readonly string[], marker: string): Promise<string[]> {
	const excluded = patterns.filter((pattern) => pattern.startsWith("!")).map((pattern) => globRegex(joinRel(base, clean(pattern.slice(1)))));
	const found = new Set<string>();
	for (const pattern of patterns) {
		if (pattern.startsWith("!")) continue;
		const segments = clean(pattern)
			.split("/")
			.filter((segment) => segment !== "" && segment !== ".");
		if (segments.includes("..")) continue;
		let current = [base];
		for (const segment of segments) {
			const next: string[] = [];
			for (const dir of current) {
				if (segment === "**") next.push(...(await descendants(reader, dir, MAX_GLOBSTAR_DEPTH)));
				else if (/[*?[]/.test(segment)) {
					const folder = await reader.read(dir);
					const regex = globRegex(segment);
					for (const name of folder?.dirs ?? []) if (!name.startsWith(".") && !NEVER_ENTERED.has(name) && regex.test(name)) next.push(joinRel(dir, name));
				} else next.push(joinRel(dir, segment));
			}
			current = [...new Set(next)].slice(0, MAX_MEMBERS);
		}
		for (const dir of current) if (dir !== base) found.add(dir);
	}
	const members: string[] = [];
	for (const dir of [...found].sort()) {
		if (excluded.some((regex) => regex.test(dir))) continue;
		if ((await reader.read(dir))?.has(marker)) members.push(dir);
		if (members.length >= MAX_MEMBERS) break;
	}
	return members;
}

async function descendants(reader: FolderReader, dir: string, depth: number): Promise<string[]> {
	const out = [dir];
	if (depth === 0) return out;
	const folder = await reader.read(dir);
	for (const name of folder?.dirs ?? []) {
		if (name.startsWith(".") || NEVER_ENTERED.has(name)) continue;
		out.push(...(await descendants(reader, joinRel(dir, name), depth - 1)));
		if (out.length > MAX_MEMBERS) break;
	}
	return out;
}

function clean(pattern: string): string {
	return pattern
		.trim()
		.replace(/\\/g, "/")
		.replace(/^\.\//, "")
		.replace(/\/+$/, "")
		.replace(/\/package\.json$/, "");
}

export function joinRel(base: string, name: string): string {
	return base === "" ? name : name === "" ? base : `${base}/${name}`;
}

/** A glob over `/`-separated paths: `*` and `?` stay in a segment, `**` crosses them. */
function globRegex(glob: string): RegExp {
	let source = "";
	for (let index = 0; index < glob.length; index++) {
		const char = glob[index] ?? "";
		if (char === "*" && glob[index + 1] === "*") {
			source += ".*";
			index++;
		} else if (char === "*") source += "[^/]*";
		else if (char === "?") source += "[^/]";
		else source += char.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
	}
	return new RegExp(`^${source}$`);
}

/** A path as one `sh` word: as it is when nothing in it is special to sh, else single-quoted; `./` first when it starts like an option (`cd -L`). */
export function shellPath(rel: string): string {
	const path = rel.startsWith("-") ? `./${rel}` : rel;
	return /^[A-Za-z0-9@/._-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

/**
 * A folder's path as a `.gitignore` line takes it literally (its glob characters and backslashes escaped),
 * or null for one no line can hold: a newline in a name would start a rule of its own.
 */
export function gitignorePath(rel: string): string | null {
	if (/[\n\r\0]/.test(rel)) return null;
	return rel.replace(/[\\*?[]/g, (char) => `\\${char}`);
}
