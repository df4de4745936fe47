import { basename } from "node:path";
import type { Stage } from "../config/schema.ts";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import { folderGlob } from "../scopes/glob.ts";
import { noun } from "../text/plural.ts";
import { type Folder, type FolderReader, folderReader, inFolder } from "./folder.ts";
import type { StackInstall, StackSeed } from "./installs.ts";
import { detectMake } from "./make.ts";
import { detectGo, detectRust } from "./native.ts";
import { detectNode } from "./node.ts";
import { detectPython } from "./python.ts";
import {
	type Detector,
	gitignorePath,
	JOB_NAMES,
	JOB_STAGES,
	type JobName,
	NEVER_ENTERED,
	type PackageManager,
	type StackFinding,
	shellPath,
} from "./shared.ts";

export { MAX_MANIFEST_BYTES } from "./folder.ts";
export { makeTargets } from "./make.ts";
export { JOB_NAMES, JOB_STAGES, type JobName, type PackageManager } from "./shared.ts";

/**
 * Stack detection for `discern setup`: read the repository's manifests and
 * tool configurations and propose what a developer of each stack would put
 * in the gate, run through the project's own package manager or runner.
 *
 * Read-only and bounded by design: nothing is run (a repository's scripts are
 * not trusted before the person has seen them, and a package manager may reach
 * the network), every file read is capped, and only the root, the folders a
 * workspace names and the first two levels of folders are looked at.
 *
 * Naming, when a repository holds several stacks:
 * - the first stack at the root that proposes jobs (in the order node, rust,
 *   go, python) gets the plain names (`test`); another stack at the root adds
 *   its kind (`test_python`);
 * - a project in a sub-folder (up to two levels down, not part of a workspace)
 *   gets its jobs run in its folder (`cd service && uv run pytest`), named
 *   after the folder (`test_service`), and a scope with its paths;
 * - a root Makefile fills the plain names no stack proposed (it usually wraps
 *   the same tools, so it never doubles them);
 * - a workspace package (npm/pnpm/yarn/bun workspaces, Cargo and Go workspaces)
 *   becomes a `[scopes.<package>]` with its paths, and for JavaScript packages
 *   with scripts a gate that runs them.
 */

/** Root stacks in priority order: the first one with jobs gets the plain job names. */
export const STACK_KINDS = ["node", "rust", "go", "python", "make"] as const;
export type StackKind = (typeof STACK_KINDS)[number];

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
	/** One short sentence naming the file that led to it, e.g. `package.json has a "lint" script`. */
	reason: string;
}

export interface ProposedScope {
	name: string;
	paths: string[];
	gate?: string;
	reason: string;
}

/** A line for the root .gitignore: a folder the proposed jobs write, which a developer of the stack ignores. */
export interface ProposedIgnore {
	line: string;
	/** Files the tools write there, relative to the root: the line is needed unless git ignores them already (ignores.ts asks). */
	probes: string[];
	/** Which tool writes it, for which jobs. */
	reason: string;
}

export interface SetupProposal {
	/** From the root manifest (package.json, Cargo.toml, pyproject.toml or setup.cfg, go.mod), or null. */
	projectName: string | null;
	stacks: DetectedStack[];
	jobs: ProposedJob[];
	scopes: ProposedScope[];
	/** Every folder the proposed jobs write; the ones a repository already ignores are dropped by the caller (ignores.ts). */
	ignores: ProposedIgnore[];
	/** The installs that make a new worktree runnable, each run from the root (a sub-folder's: `cd dir && …`). */
	installs: StackInstall[];
	/** The main checkout's build caches a new worktree starts with, relative to the root. */
	seeds: StackSeed[];
}

const DETECTORS: ReadonlyArray<readonly [Exclude<StackKind, "make">, Detector]> = [
	["node", detectNode],
	["rust", detectRust],
	["go", detectGo],
	["python", (folder) => detectPython(folder)],
];

/** Sub-folders looked at for projects of their own, at most this deep and this many. */
const SUBFOLDER_DEPTH = 2;
const MAX_SUBFOLDERS = 400;

/**
 * `isTracked`: whether git tracks a path (relative to the root). Given, a
 * project in a sub-folder counts only when its manifest is tracked: an
 * untracked or ignored folder (a scratch clone, a vendored tool) is not in
 * a new worktree, and jobs or installs that `cd` into it would fail there.
 */
export async function detectStack(root: string, options: { isTracked?: (path: string) => boolean } = {}): Promise<SetupProposal> {
	const reader = await folderReader(root, options.isTracked);
	const top = await reader.read("");
	if (!top) return { projectName: null, stacks: [], jobs: [], scopes: [], ignores: [], installs: [], seeds: [] };
	const rootFindings = await findingsIn(top, reader);
	const members = rootFindings.flatMap((finding) => finding.members);
	const taken = new Set(members.map((member) => member.dir));
	const nested: Array<{ folder: Folder; findings: StackFinding[] }> = [];
	for (const folder of await subfolders(reader, top, taken)) {
		const findings = (await findingsIn(folder, reader)).filter((finding) => finding.jobs.length > 0 && folder.tracked(basename(finding.evidence)));
		if (findings.length > 0) nested.push({ folder, findings });
	}

	const stacks: DetectedStack[] = [];
	const named: Array<{ base: JobName; job: ProposedJob }> = [];
	const add = (base: JobName, name: string, run: string, reason: string, stage?: Stage) =>
		named.push({ base, job: { name, stage: stage ?? JOB_STAGES[base], run, reason } });

	const ignores = new IgnoreLines();
	const installs: StackInstall[] = [];
	const seeds: StackSeed[] = [];
	/** A project's worktree needs, from the root: a sub-folder's install runs in its folder. */
	const need = (dir: string, finding: StackFinding) => {
		for (const install of finding.needs.installs)
			installs.push({ run: dir === "" ? install.run : `cd ${shellPath(dir)} && ${install.run}`, reason: install.reason });
		for (const seed of finding.needs.seeds) seeds.push({ path: inFolder(dir, seed.path), reason: seed.reason });
	};

	const primary = rootFindings.find((finding) => finding.jobs.length > 0);
	for (const finding of rootFindings) {
		stacks.push(stackOf(finding));
		const nameOf = (base: JobName) => (finding === primary ? base : `${base}_${finding.kind}`);
		for (const job of finding.jobs) add(job.name, nameOf(job.name), job.run, job.reason, job.stage);
		ignores.add("", finding, nameOf);
		need("", finding);
	}
	const make = detectMake(top);
	if (make) {
		stacks.push(make.stack);
		const used = new Set(named.map((entry) => entry.job.name));
		for (const job of make.jobs) if (!used.has(job.name)) add(job.name, job.name, job.run, job.reason);
	}

	const scopes = new ScopeNames();
	// A folder whose name the glob dialect cannot say gets no scope (its jobs still run).
	const proposedScopes: ProposedScope[] = members.flatMap((member) => {
		const paths = folderGlob(member.dir);
		if (paths === null) return [];
		return [{ name: scopes.take(member.name, member.dir), paths: [paths], ...(member.gate ? { gate: member.gate } : {}), reason: member.reason }];
	});
	for (const { folder, findings } of nested) {
		const slug = scopes.take(folder.rel.split("/").pop() ?? folder.rel, folder.rel);
		const paths = folderGlob(folder.rel);
		if (paths !== null)
			proposedScopes.push({ name: slug, paths: [paths], reason: `${findings[0]?.evidence} is a project of its own; its jobs are named \`…_${slug}\`` });
		findings.forEach((finding, index) => {
			stacks.push(stackOf(finding));
			const suffix = index === 0 ? slug : `${slug}_${finding.kind}`;
			for (const job of finding.jobs) add(job.name, `${job.name}_${suffix}`, `cd ${shellPath(folder.rel)} && ${job.run}`, job.reason, job.stage);
			ignores.add(folder.rel, finding, (base) => `${base}_${suffix}`);
			need(folder.rel, finding);
		});
	}

	// Stage order, then the order found (root before sub-folders); the sort is stable.
	named.sort((a, b) => JOB_NAMES.indexOf(a.base) - JOB_NAMES.indexOf(b.base));
	return {
		projectName: rootFindings.find((finding) => finding.projectName !== null)?.projectName ?? null,
		stacks,
		jobs: named.map((entry) => entry.job),
		scopes: proposedScopes,
		ignores: ignores.lines(),
		installs,
		seeds,
	};
}

/**
 * The .gitignore lines of every project found, one per line: a folder
 * written by several projects or jobs (`__pycache__/`) is one line whose
 * reason names them all. A line anchored to its project (`/target/`) is
 * anchored to the project's folder from the root (`/engine/target/`).
 */
class IgnoreLines {
	private readonly byLine = new Map<string, { probes: Set<string>; reasons: string[] }>();

	add(dir: string, finding: StackFinding, nameOf: (base: JobName) => string): void {
		for (const output of finding.outputs) {
			const anchored = output.pattern.startsWith("/") && dir !== "";
			const at = anchored ? gitignorePath(dir) : "";
			// A folder whose name no .gitignore line can hold gets no line: its tool's output is left for the person to ignore.
			if (at === null) continue;
			const line = anchored ? `/${at}${output.pattern}` : output.pattern;
			const entry = this.byLine.get(line) ?? { probes: new Set<string>(), reasons: [] };
			for (const probe of output.probes) entry.probes.add(inFolder(dir, probe));
			const jobs = output.jobs.map((base) => `\`${nameOf(base)}\``);
			const reason = jobs.length === 0 ? output.why : `${output.why} (${noun(jobs.length, "job")} ${jobs.join(", ")})`;
			if (!entry.reasons.includes(reason)) entry.reasons.push(reason);
			this.byLine.set(line, entry);
		}
	}

	lines(): ProposedIgnore[] {
		return [...this.byLine].map(([line, entry]) => ({ line, probes: [...entry.probes], reason: entry.reasons.join("; ") }));
	}
}

async function findingsIn(folder: Folder, reader: FolderReader): Promise<StackFinding[]> {
	const found = await Promise.all(DETECTORS.map(([, detect]) => detect(folder, reader)));
	return found.filter((finding): finding is StackFinding => finding !== null);
}

function stackOf(finding: StackFinding): DetectedStack {
	return { kind: finding.kind, evidence: finding.evidence, ...(finding.manager ? { manager: finding.manager } : {}) };
}

/** Folders one and two levels down that may hold a project of their own; workspace packages and what they hold are left out. */
async function subfolders(reader: FolderReader, top: Folder, taken: ReadonlySet<string>): Promise<Folder[]> {
	const out: Folder[] = [];
	let level: Folder[] = [top];
	for (let depth = 1; depth <= SUBFOLDER_DEPTH; depth++) {
		const next: Folder[] = [];
		for (const parent of level) {
			for (const name of parent.dirs) {
				if (name.startsWith(".") || NEVER_ENTERED.has(name) || out.length + next.length >= MAX_SUBFOLDERS) continue;
				const rel = inFolder(parent.rel, name);
				if (taken.has(rel) || [...taken].some((dir) => rel.startsWith(`${dir}/`) || dir.startsWith(`${rel}/`))) continue;
				const folder = await reader.read(rel);
				if (folder) next.push(folder);
			}
		}
		out.push(...next);
		// A folder that is a project is not searched for more projects inside it.
		level = next.filter((folder) => !isProject(folder));
	}
	return out;
}

function isProject(folder: Folder): boolean {
	return ["package.json", "Cargo.toml", "go.mod", "go.work", "pyproject.toml", "setup.cfg", "setup.py", "requirements.txt"].some((name) => folder.has(name));
}

/** Scope names are unique and valid (`letters, digits, -, _`); `@acme/web` becomes `web`. */
class ScopeNames {
	private readonly used = new Set<string>();
	take(name: string, dir: string): string {
		for (const candidate of [slug(name.split("/").pop() ?? name), slug(dir.replace(/\//g, "_"))]) {
			if (candidate !== "" && !this.used.has(candidate)) {
				this.used.add(candidate);
				return candidate;
			}
		}
		let index = 2;
		const base = slug(dir.replace(/\//g, "_")) || "scope";
		while (this.used.has(`${base}_${index}`)) index++;
		this.used.add(`${base}_${index}`);
		return `${base}_${index}`;
	}
}

function slug(text: string): string {
	const cleaned = text.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
	return ["__proto__", "constructor", "prototype"].includes(cleaned) ? `${cleaned}_` : cleaned;
}

/** Whether git tracks a path (relative to the root), from one listing; null when git cannot list them (then every file counts). */
export async function trackedPaths(root: string): Promise<((path: string) => boolean) | null> {
	const listed = await git(["ls-files", "-z", "--full-name"], root);
	if (listed.exitCode !== 0) return null;
	const tracked = new Set(nulSeparated(listed.stdout));
	return (path) => tracked.has(path);
}
