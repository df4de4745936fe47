import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { Stage } from "../config/schema.ts";

/**
 * Stack detection for `discern setup`: look at the files at the repository
 * root and propose the gate's jobs. Read-only by design: nothing is run (a
 * repository's scripts are not trusted before the person has seen them), and
 * only the root is read, so the cost does not grow with the repository.
 */

/** In priority order: when two stacks propose the same job, the earlier one wins. */
export const STACK_KINDS = ["node", "rust", "go", "python", "make"] as const;
export type StackKind = (typeof STACK_KINDS)[number];

/** The only jobs setup proposes, in the order they are written (which is stage order). */
export const JOB_NAMES = ["format", "build", "lint", "typecheck", "test"] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** Mirrors KNOWN_JOB_STAGES for the names setup proposes (a test keeps the two in step). */
export const JOB_STAGES: Readonly<Record<JobName, Stage>> = {
	format: "fix",
	build: "build",
	lint: "check",
	typecheck: "check",
	test: "test",
};

/** A manifest larger than this is generated or hostile; its contents are not read. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

export type PackageManager = "npm" | "pnpm" | "yarn" | "bun" | "uv" | "poetry" | "pip";
type NodeManager = Extract<PackageManager, "npm" | "pnpm" | "yarn" | "bun">;
type PythonManager = Extract<PackageManager, "uv" | "poetry" | "pip">;

export interface DetectedStack {
	kind: StackKind;
	/** The file that told us, relative to the root. */
	evidence: string;
	manager?: PackageManager;
}

export interface ProposedJob {
	name: string;
	stage: Stage;
	run: string;
	/** One short sentence, e.g. `package.json has a "lint" script`. */
	reason: string;
}

export interface SetupProposal {
	stacks: DetectedStack[];
	jobs: ProposedJob[];
}

export async function detectStack(root: string): Promise<SetupProposal> {
	const files = await readRootFiles(root);
	const detections = STACK_KINDS.flatMap((kind) => DETECTORS[kind](files) ?? []);
	return { stacks: detections.map((detection) => detection.stack), jobs: mergeJobs(detections) };
}

interface Detection {
	stack: DetectedStack;
	jobs: ProposedJob[];
}

type Detector = (files: RootFiles) => Detection | null;

/** A `Record` so that a new stack kind without a detector does not compile. */
const DETECTORS: Readonly<Record<StackKind, Detector>> = {
	node: detectNode,
	rust: detectRust,
	go: detectGo,
	python: detectPython,
	make: detectMake,
};

/** First proposal per name wins (detections arrive in priority order); output in stage order. */
function mergeJobs(detections: readonly Detection[]): ProposedJob[] {
	const chosen = new Map<string, ProposedJob>();
	for (const detection of detections) {
		for (const job of detection.jobs) if (!chosen.has(job.name)) chosen.set(job.name, job);
	}
	return JOB_NAMES.flatMap((name) => chosen.get(name) ?? []);
}

function job(name: JobName, run: string, reason: string): ProposedJob {
	return { name, stage: JOB_STAGES[name], run, reason };
}

// ---------------------------------------------------------------- root files

/** Files whose presence matters. */
const WATCHED = new Set([
	"package.json",
	"bun.lock",
	"bun.lockb",
	"pnpm-lock.yaml",
	"yarn.lock",
	"package-lock.json",
	"Cargo.toml",
	"go.mod",
	"pyproject.toml",
	"setup.cfg",
	"uv.lock",
	"poetry.lock",
	"ruff.toml",
	".ruff.toml",
	"mypy.ini",
	".mypy.ini",
	"GNUmakefile",
	"makefile",
	"Makefile",
]);

/** Files whose contents matter; lockfiles are never read (they are large, and bun.lockb is binary). */
const READ = new Set(["package.json", "pyproject.toml", "setup.cfg", "GNUmakefile", "makefile", "Makefile"]);

interface RootFiles {
	has(name: string): boolean;
	/** The text, or null when absent, unreadable or over MAX_MANIFEST_BYTES. */
	text(name: string): string | null;
}

/**
 * Names come from `readdir`, not from probing paths, so the evidence carries
 * the file's real spelling on case-insensitive file systems (`makefile` vs
 * `Makefile`). Only regular files count (after following a link): a folder or
 * a FIFO named `package.json` is not a manifest, and reading a FIFO would hang.
 */
async function readRootFiles(root: string): Promise<RootFiles> {
	const entries = await readdir(root);
	const present = new Set<string>();
	const texts = new Map<string, string>();
	await Promise.all(
		entries
			.filter((name) => WATCHED.has(name))
			.map(async (name) => {
				const path = join(root, name);
				const info = await stat(path).catch(() => null);
				if (!info?.isFile()) return;
				present.add(name);
				if (!READ.has(name) || info.size > MAX_MANIFEST_BYTES) return;
				const text = await readFile(path, "utf8").catch(() => null);
				if (text !== null) texts.set(name, text);
			}),
	);
	return { has: (name) => present.has(name), text: (name) => texts.get(name) ?? null };
}

// ---------------------------------------------------------------------- node

/** For each job, the script names that mean it, most conventional first. */
const NODE_SCRIPTS: ReadonlyArray<readonly [JobName, readonly string[]]> = [
	["format", ["format", "fmt"]],
	["build", ["build"]],
	["lint", ["lint"]],
	["typecheck", ["typecheck", "type-check", "tsc", "check-types"]],
	["test", ["test"]],
];

/** Lockfiles in the order they are trusted when a repository carries several. */
const NODE_LOCKFILES: ReadonlyArray<readonly [string, NodeManager]> = [
	["bun.lock", "bun"],
	["bun.lockb", "bun"],
	["pnpm-lock.yaml", "pnpm"],
	["yarn.lock", "yarn"],
	["package-lock.json", "npm"],
];

function detectNode(files: RootFiles): Detection | null {
	if (!files.has("package.json")) return null;
	const manifest = readManifest(files.text("package.json"));
	const manager = nodeManager(files, manifest.packageManager);
	const jobs: ProposedJob[] = [];
	for (const [name, candidates] of NODE_SCRIPTS) {
		const script = candidates.find((candidate) => manifest.scripts.has(candidate));
		if (script) jobs.push(job(name, nodeCommand(manager, script), `package.json has a "${script}" script`));
	}
	return { stack: { kind: "node", evidence: "package.json", manager }, jobs };
}

interface Manifest {
	/** Usable scripts only: string, non-empty, not npm's failing placeholder. */
	scripts: Map<string, string>;
	packageManager: string | null;
}

/** Never throws: a broken or oversized package.json still means "node", just without scripts. */
function readManifest(text: string | null): Manifest {
	const empty: Manifest = { scripts: new Map(), packageManager: null };
	if (text === null) return empty;
	let parsed: unknown;
	try {
		// npm tolerates a byte-order mark; JSON.parse does not.
		parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
	} catch {
		return empty;
	}
	if (!isRecord(parsed)) return empty;
	const scripts = new Map<string, string>();
	const declared = parsed.scripts;
	if (isRecord(declared)) {
		for (const [name, command] of Object.entries(declared)) {
			if (typeof command === "string" && isUsableScript(command)) scripts.set(name, command);
		}
	}
	return { scripts, packageManager: typeof parsed.packageManager === "string" ? parsed.packageManager : null };
}

/** `npm init` writes a test script that always fails; proposing it would make the gate red on day one. */
function isUsableScript(command: string): boolean {
	return command.trim() !== "" && !/no test specified/.test(command);
}

/** The lockfile decides; without one, corepack's `packageManager` field states the intent; else npm. */
function nodeManager(files: RootFiles, packageManager: string | null): NodeManager {
	for (const [lockfile, manager] of NODE_LOCKFILES) if (files.has(lockfile)) return manager;
	const declared = packageManager?.split("@")[0];
	return declared === "pnpm" || declared === "yarn" || declared === "bun" ? declared : "npm";
}

function nodeCommand(manager: NodeManager, script: string): string {
	// `bun test` would start Bun's own runner instead of the script, so every manager gets `run`, except npm's own `npm test`.
	if (manager === "npm" && script === "test") return "npm test";
	return `${manager} run ${script}`;
}

// ---------------------------------------------------------------- rust / go

function detectRust(files: RootFiles): Detection | null {
	if (!files.has("Cargo.toml")) return null;
	const reason = "Cargo.toml marks a Rust project";
	return {
		stack: { kind: "rust", evidence: "Cargo.toml" },
		jobs: [
			job("format", "cargo fmt", `${reason}; rustfmt is its formatter`),
			job("build", "cargo build", reason),
			job("lint", "cargo clippy -- -D warnings", `${reason}; clippy is its linter`),
			job("test", "cargo test", reason),
		],
	};
}

function detectGo(files: RootFiles): Detection | null {
	if (!files.has("go.mod")) return null;
	const reason = "go.mod marks a Go module";
	return {
		stack: { kind: "go", evidence: "go.mod" },
		jobs: [
			// `go fmt ./...` rather than `gofmt -w .`: package patterns skip vendor/, which is not ours to reformat.
			job("format", "go fmt ./...", reason),
			job("build", "go build ./...", reason),
			job("lint", "go vet ./...", reason),
			job("test", "go test ./...", reason),
		],
	};
}

// -------------------------------------------------------------------- python

const PYTHON_PREFIX: Readonly<Record<PythonManager, string>> = { uv: "uv run ", poetry: "poetry run ", pip: "" };

function detectPython(files: RootFiles): Detection | null {
	const evidence = ["pyproject.toml", "setup.cfg"].find((name) => files.has(name));
	if (!evidence) return null;
	const manager: PythonManager = files.has("uv.lock") ? "uv" : files.has("poetry.lock") ? "poetry" : "pip";
	// Tools live in the project's environment, so every command goes through the manager.
	const prefix = PYTHON_PREFIX[manager];
	const tools = pythonTools(files);
	const jobs: ProposedJob[] = [];
	if (tools.ruff) {
		jobs.push(job("format", `${prefix}ruff format .`, tools.ruff));
		jobs.push(job("lint", `${prefix}ruff check .`, tools.ruff));
	}
	if (tools.mypy) jobs.push(job("typecheck", `${prefix}mypy .`, tools.mypy));
	jobs.push(job("test", `${prefix}pytest`, `${evidence} marks a Python project; pytest is the usual runner`));
	return { stack: { kind: "python", evidence, manager }, jobs };
}

/** Why ruff and mypy are proposed, or null when neither pyproject.toml nor their own files configure them. */
function pythonTools(files: RootFiles): { ruff: string | null; mypy: string | null } {
	const tools = pyprojectTools(files.text("pyproject.toml"));
	const ownFile = (names: readonly string[], tool: string) => {
		const found = names.find((name) => files.has(name));
		return found ? `${found} configures ${tool}` : null;
	};
	const ruff = tools.has("ruff") ? "pyproject.toml has a [tool.ruff] table" : ownFile(["ruff.toml", ".ruff.toml"], "ruff");
	const mypyInSetupCfg = /^\s*\[mypy\]/m.test(files.text("setup.cfg") ?? "");
	const mypy = tools.has("mypy")
		? "pyproject.toml has a [tool.mypy] table"
		: mypyInSetupCfg
			? "setup.cfg has a [mypy] section"
			: ownFile(["mypy.ini", ".mypy.ini"], "mypy");
	return { ruff, mypy };
}

/**
 * The names under `[tool]`. A parse catches every spelling (`[tool.ruff.lint]`,
 * dotted keys, quoted keys); a file the parser rejects still gets a header
 * scan, since a typo elsewhere should not hide the linter.
 */
function pyprojectTools(text: string | null): Set<string> {
	if (text === null) return new Set();
	try {
		const tool = parseToml(text).tool;
		return new Set(isRecord(tool) ? Object.keys(tool) : []);
	} catch {
		const headers = text.matchAll(/^\s*\[\s*tool\s*\.\s*"?([A-Za-z0-9_-]+)"?\s*[.\]]/gm);
		return new Set(Array.from(headers, (match) => match[1] ?? ""));
	}
}

// ---------------------------------------------------------------------- make

/** GNU make's own search order. */
const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"] as const;

/** `check` stands in for `lint` when there is no `lint`: it is the stage the name promises. */
const MAKE_TARGETS: ReadonlyArray<readonly [JobName, readonly string[]]> = [
	["format", ["format", "fmt"]],
	["build", ["build"]],
	["lint", ["lint", "check"]],
	["typecheck", ["typecheck", "type-check"]],
	["test", ["test"]],
];

function detectMake(files: RootFiles): Detection | null {
	const evidence = MAKEFILES.find((name) => files.has(name));
	if (!evidence) return null;
	const targets = makeTargets(files.text(evidence) ?? "");
	const jobs: ProposedJob[] = [];
	for (const [name, candidates] of MAKE_TARGETS) {
		const target = candidates.find((candidate) => targets.has(candidate));
		if (target) jobs.push(job(name, `make ${target}`, `${evidence} has a "${target}" target`));
	}
	return { stack: { kind: "make", evidence }, jobs };
}

/**
 * Explicit targets from rule lines (`test:`, `test lint: deps`, `test::`).
 * Recipe lines (tab-indented) and comments are skipped; `:=`, `::=` and
 * `:::=` are assignments, not rules.
 */
export function makeTargets(text: string): Set<string> {
	const targets = new Set<string>();
	for (const line of text.split(/\r?\n/)) {
		if (line.startsWith("\t")) continue;
		const match = /^ *([^\s:#=][^:#=]*?)\s*::?(?![:=])/.exec(line);
		for (const target of match?.[1]?.split(/\s+/) ?? []) targets.add(target);
	}
	return targets;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
