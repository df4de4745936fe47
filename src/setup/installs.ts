import { type Folder, inFolder } from "./folder.ts";
import type { NodeManager, PythonManager } from "./shared.ts";

/**
 * What makes a fresh worktree runnable, per stack (issue 22, item 1): a new
 * worktree is a bare checkout, so a job that starts `tsc` from node_modules
 * or `pytest` from the project's environment cannot start until the
 * dependencies are installed there. setup proposes the install the project's
 * lockfile pins as a `[worktree.setup].ensure` step (start runs it in each new
 * worktree, `update` again after the trunk came in), and, where it is safe
 * and the install keeps it, a build cache of the main checkout to seed the
 * worktree with (`[worktree].seed`).
 */

/** One `[worktree.setup].ensure` command: in the project's folder, or from the root once detection placed it. */
export interface StackInstall {
	run: string;
	/** Names the file that led to it. */
	reason: string;
}

/** One `[worktree].seed` folder: relative to the project's folder, or to the root once detection placed it. */
export interface StackSeed {
	path: string;
	reason: string;
}

export interface WorktreeNeeds {
	installs: StackInstall[];
	seeds: StackSeed[];
}

const NOTHING: WorktreeNeeds = { installs: [], seeds: [] };

/** The lockfile's own frozen install: it installs exactly what is pinned and fails rather than change the lockfile. */
const FROZEN: Readonly<Record<NodeManager, string>> = {
	npm: "npm ci",
	pnpm: "pnpm install --frozen-lockfile",
	yarn: "yarn install --frozen-lockfile",
	bun: "bun install --frozen-lockfile",
};

/**
 * `manager` and `evidence` as node.ts found them (the lockfile, or what
 * stood in for one). A package without dependencies needs no install. The
 * seed is proposed where the frozen install keeps a node_modules it finds
 * and only adds what changed (pnpm, Yarn, Bun); `npm ci` starts by deleting
 * node_modules, so a seed would be copied only to be thrown away.
 */
export function nodeNeeds(
	manager: NodeManager,
	evidence: string,
	options: { locked: "tracked" | "untracked" | "none"; needsInstall: boolean; berry: boolean; installsNodeModules: boolean },
): WorktreeNeeds {
	if (!options.needsInstall) return NOTHING;
	if (options.locked !== "tracked") {
		const run = `${manager} install`;
		const why =
			options.locked === "untracked" ? `${evidence} is not tracked by git, so a new worktree lacks it` : `${evidence}: a new worktree has no dependencies`;
		return { installs: [{ run, reason: `${why}; with no lockfile, each one resolves them afresh` }], seeds: [] };
	}
	// Yarn 2 and later refuse a lockfile change with --immutable; --frozen-lockfile is Yarn 1's word.
	const run = manager === "yarn" && options.berry ? "yarn install --immutable" : FROZEN[manager];
	const installs = [{ run, reason: `${evidence} pins the dependencies; a new worktree has none until it installs them` }];
	const seeds =
		manager !== "npm" && options.installsNodeModules
			? [{ path: "node_modules", reason: "the main checkout's, so a new worktree starts warm; the install then changes only what its lockfile changed" }]
			: [];
	return { installs, seeds };
}

/**
 * A lockfile's runner installs the environment the jobs run in. Hatch makes
 * its environments on first `hatch run`; with plain pip the tools come from
 * an environment the person activated, shared by every checkout, so nothing
 * is proposed: an editable install from a worktree would point that shared
 * environment at the worktree. A virtualenv is never seeded: it holds
 * absolute paths to the checkout it was made in.
 */
export function pythonNeeds(folder: Folder, manager: PythonManager): WorktreeNeeds {
	const at = (name: string) => inFolder(folder.rel, name);
	switch (manager) {
		case "uv":
			return {
				installs: [
					folder.tracked("uv.lock")
						? { run: "uv sync --locked", reason: `${at("uv.lock")} pins the environment; a new worktree has none until it is made` }
						: { run: "uv sync", reason: `${at("pyproject.toml")}: \`uv sync\` makes the worktree's environment (no committed uv.lock pins it)` },
				],
				seeds: [],
			};
		case "poetry":
			return {
				installs: [
					{
						run: "poetry install",
						reason: `${folder.tracked("poetry.lock") ? at("poetry.lock") : at("pyproject.toml")}: Poetry installs the locked environment`,
					},
				],
				seeds: [],
			};
		case "pdm":
			return {
				installs: [
					folder.tracked("pdm.lock")
						? { run: "pdm sync", reason: `${at("pdm.lock")} pins the environment; a new worktree has none until it is made` }
						: { run: "pdm install", reason: `${at("pyproject.toml")}: PDM makes the worktree's environment (no committed pdm.lock pins it)` },
				],
				seeds: [],
			};
		default:
			return NOTHING;
	}
}

/**
 * Cargo keeps downloaded crates in one cache for every checkout, so the
 * install is a fetch of what Cargo.lock pins; the build cache is target/,
 * which Cargo keys by content and relative paths, so a copy of the main
 * checkout's is reused where it matches and rebuilt where it does not.
 */
export function rustNeeds(folder: Folder): WorktreeNeeds {
	if (!folder.tracked("Cargo.lock")) return NOTHING;
	return {
		installs: [{ run: "cargo fetch --locked", reason: `${inFolder(folder.rel, "Cargo.lock")} pins the crates; fetched once, not by each job` }],
		seeds: [{ path: "target", reason: "the main checkout's build cache, so a new worktree starts warm; Cargo rebuilds what differs" }],
	};
}

/** Go keeps modules and builds in caches outside the project: only the download is worth a step. */
export function goNeeds(folder: Folder): WorktreeNeeds {
	if (!folder.tracked("go.sum")) return NOTHING;
	return { installs: [{ run: "go mod download", reason: `${inFolder(folder.rel, "go.sum")} pins the modules; downloaded once, not by each job` }], seeds: [] };
}
