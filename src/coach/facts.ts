import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { MCP_TARGETS } from "../agents/targets.ts";
import { type Job, resolveJobs } from "../config/jobs.ts";
import type { DiscernConfig } from "../config/schema.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import { gitLine } from "../git/run.ts";
import { readLastDone, readLastRun } from "../jobs/last-run.ts";
import { isInside } from "../platform/files.ts";
import { readProof } from "../proof/record.ts";
import { detectStack, MAX_MANIFEST_BYTES, type PackageManager, type ProposedJob } from "../setup/detect.ts";
import { pnpmWorkspacePackages } from "../setup/pnpm-workspace.ts";

/**
 * Everything the coach's rules look at, gathered at once (every read runs
 * concurrently): the config, the file system and discern's own state. No
 * network, no job runs. The rules (`rules.ts`) are pure over this.
 */
export interface Facts {
	config: DiscernConfig;
	/** Jobs with their stage resolved, in declaration order. */
	jobs: Job[];
	/** What `setup` would propose for this stack: names, stages and commands (a concrete fix). */
	proposed: Pick<ProposedJob, "name" | "stage" | "run">[];
	/** A fresh checkout needs dependencies installed: the manifest that says so and its package manager, or null. */
	dependencies: { evidence: string; manager: PackageManager | null } | null;
	/** The file that says this is a multi-package repository, or null. */
	workspace: string | null;
	map: { dir: string; state: "missing" | "outside" | "present"; regions: { name: string; readme: boolean }[] };
	instructions: { sources: { path: string; exists: boolean }[]; agentsMd: boolean };
	/** Each declared agent with its MCP config file and whether that declares a `discern` server. */
	agents: { agent: string; file: string | null; wired: boolean }[];
	gate: {
		head: string | null;
		proofHead: string | null;
		lastDone: { ok: boolean; head: string | null } | null;
		lastRun: { ok: boolean; head: string | null } | null;
	};
}

/** `known.head`: HEAD when the caller read it already (`status`), sparing a git call. */
export async function gatherFacts(repository: RepositoryLocation, config: DiscernConfig, known: { head?: string | null } = {}): Promise<Facts> {
	const { root, gitDir } = repository;
	const [proposal, workspace, map, instructions, agents, head, proof, lastDone, lastRun] = await Promise.all([
		detectStack(root).catch(() => ({ stacks: [], jobs: [] })),
		findWorkspace(root),
		readMap(root, config.map.dir),
		readInstructions(root, config.instructions.sources),
		readAgents(root, config.project.agents),
		known.head !== undefined ? known.head : gitLine(["rev-parse", "--verify", "-q", "HEAD"], root),
		readProof(gitDir),
		readLastDone(gitDir),
		readLastRun(gitDir),
	]);
	const installs = proposal.stacks.find((stack) => stack.kind === "node" || stack.kind === "python");
	return {
		config,
		jobs: resolveJobs(config),
		proposed: proposal.jobs.map(({ name, stage, run }) => ({ name, stage, run })),
		dependencies: installs ? { evidence: installs.evidence, manager: installs.manager ?? null } : null,
		workspace,
		map,
		instructions,
		agents,
		gate: {
			head,
			proofHead: proof?.head ?? null,
			lastDone: lastDone ? { ok: lastDone.ok && !lastDone.standalone, head: lastDone.head } : null,
			lastRun: lastRun ? { ok: lastRun.ok, head: lastRun.head } : null,
		},
	};
}

const isFile = (path: string) =>
	stat(path).then(
		(info) => info.isFile(),
		() => false,
	);

async function smallText(path: string): Promise<string | null> {
	const info = await stat(path).catch(() => null);
	if (!info?.isFile() || info.size > MAX_MANIFEST_BYTES) return null;
	return readFile(path, "utf8").catch(() => null);
}

/**
 * Files whose presence alone declares several packages. Not
 * pnpm-workspace.yaml: pnpm 10 keeps settings there (`onlyBuiltDependencies`,
 * `allowBuilds`) in a one-package project too; only its `packages:` list
 * declares packages.
 */
const WORKSPACE_FILES = ["go.work", "lerna.json", "nx.json", "turbo.json", "rush.json"];

async function findWorkspace(root: string): Promise<string | null> {
	const [pnpm, present, packageJson, cargo] = await Promise.all([
		smallText(join(root, "pnpm-workspace.yaml")),
		Promise.all(WORKSPACE_FILES.map((name) => isFile(join(root, name)))),
		smallText(join(root, "package.json")),
		smallText(join(root, "Cargo.toml")),
	]);
	if (pnpmWorkspacePackages(pnpm).length > 0) return "pnpm-workspace.yaml";
	const file = WORKSPACE_FILES.find((_, index) => present[index]);
	if (file) return file;
	if (packageJson !== null && declaresWorkspaces(packageJson)) return "package.json";
	if (cargo !== null && /^\s*\[workspace\]/m.test(cargo)) return "Cargo.toml";
	return null;
}

function declaresWorkspaces(text: string): boolean {
	try {
		const parsed = JSON.parse(text) as Record<string, unknown> | null;
		return typeof parsed === "object" && parsed !== null && parsed.workspaces !== undefined;
	} catch {
		return false;
	}
}

/** A path inside the checkout, or null for one that leaves it. */
function inside(root: string, path: string): string | null {
	const full = resolve(root, path);
	return isInside(root, full) ? full : null;
}

async function readMap(root: string, dir: string): Promise<Facts["map"]> {
	const full = inside(root, dir);
	if (full === null) return { dir, state: "outside", regions: [] };
	const entries = await readdir(full, { withFileTypes: true }).catch(() => null);
	if (entries === null) return { dir, state: "missing", regions: [] };
	const names = entries
		.filter((entry) => entry.isDirectory() && !entry.name.startsWith("_") && !entry.name.startsWith("."))
		.map((entry) => entry.name)
		.sort();
	const regions = await Promise.all(
		names.map(async (name) => {
			const files = await readdir(join(full, name)).catch(() => [] as string[]);
			return { name, readme: files.some((file) => file.toLowerCase() === "readme.md") };
		}),
	);
	return { dir, state: "present", regions };
}

async function readInstructions(root: string, sources: readonly string[]): Promise<Facts["instructions"]> {
	const [found, agentsMd] = await Promise.all([
		Promise.all(sources.map(async (path) => ({ path, exists: inside(root, path) !== null && (await isFile(join(root, path))) }))),
		isFile(join(root, "AGENTS.md")),
	]);
	return { sources: found, agentsMd };
}

async function readAgents(root: string, agents: readonly string[]): Promise<Facts["agents"]> {
	return Promise.all(
		[...new Set(agents)].map(async (agent) => {
			const target = MCP_TARGETS.find((candidate) => candidate.agent === agent);
			if (!target) return { agent, file: null, wired: false };
			const text = await smallText(join(root, target.file));
			return { agent, file: target.file, wired: text !== null && target.declaresDiscern(text) };
		}),
	);
}
