import type { JobName, NodeManager, PythonManager, StackJob, ToolOutput } from "./shared.ts";

/**
 * The folders a stack's proposed jobs write in the project, or that the
 * install they run from fills: what a developer of that stack always keeps
 * out of git. discern's gate counts a file a job creates that the committed
 * ignore rules do not ignore as the job changing the tree (and a tool's own
 * `.gitignore` inside its cache, as rules git reads that are not committed),
 * so without these lines the first `done` fails. Which of them a repository
 * already ignores is git's answer (ignores.ts), not this module's.
 */

/** Does a proposed command run `tool`: plainly, through a runner (`uv run ruff`), or in a Hatch environment (`lint:ruff`)? */
function runs(job: StackJob, tool: string): boolean {
	return job.run.split(/\s+/).some((word) => word === tool || word.endsWith(`:${tool}`));
}

function jobsRunning(jobs: readonly StackJob[], tool: string): JobName[] {
	return jobs.filter((job) => runs(job, tool)).map((job) => job.name);
}

/** Where a probe goes that stands for any folder below the project (the lines that ignore at any depth). */
const BELOW = "discern-probe";

export function pythonOutputs(manager: PythonManager, jobs: readonly StackJob[]): ToolOutput[] {
	if (jobs.length === 0) return [];
	const outputs: ToolOutput[] = [];
	const pytest = jobsRunning(jobs, "pytest");
	if (pytest.length > 0) {
		outputs.push({
			pattern: ".pytest_cache/",
			probes: [".pytest_cache/.gitignore", ".pytest_cache/v/cache/nodeids"],
			jobs: pytest,
			why: "pytest keeps its cache there",
		});
	}
	const mypy = jobsRunning(jobs, "mypy");
	if (mypy.length > 0)
		outputs.push({ pattern: ".mypy_cache/", probes: [".mypy_cache/.gitignore", ".mypy_cache/CACHEDIR.TAG"], jobs: mypy, why: "mypy keeps its cache there" });
	const ruff = jobsRunning(jobs, "ruff");
	if (ruff.length > 0)
		outputs.push({ pattern: ".ruff_cache/", probes: [".ruff_cache/.gitignore", ".ruff_cache/CACHEDIR.TAG"], jobs: ruff, why: "Ruff keeps its cache there" });
	// Every folder of modules gets one; pytest writes its rewritten test modules there too. A `*.pyc` rule already covers it.
	outputs.push({
		pattern: "__pycache__/",
		probes: ["__pycache__/module.cpython-312.pyc", `${BELOW}/__pycache__/module.cpython-312.pyc`],
		jobs: pytest.length > 0 ? pytest : jobs.map((job) => job.name),
		why: "Python writes the bytecode of the modules it imports there",
	});
	// uv run creates the environment on first use; pdm installs it there by default (poetry and hatch keep theirs elsewhere).
	if (manager === "uv")
		outputs.push({
			pattern: ".venv/",
			probes: [".venv/pyvenv.cfg", ".venv/.gitignore"],
			jobs: jobs.map((job) => job.name),
			why: "`uv run` creates the project's environment there",
		});
	if (manager === "pdm")
		outputs.push({ pattern: ".venv/", probes: [".venv/pyvenv.cfg"], jobs: [], why: "pdm installs the project's environment there, which the jobs run in" });
	return outputs;
}

/**
 * node_modules, when the manager installs there: npm, pnpm and Bun do, and
 * Yarn 1; Yarn 2 and later only with `nodeLinker: node-modules` (or pnpm's
 * layout), their default Plug'n'Play keeps packages in .yarn/.
 * `members`: workspace packages, relative to the project, each of which can
 * get a node_modules of its own.
 */
export function nodeOutputs(manager: NodeManager, yarnrc: string | null, hasJobs: boolean, members: readonly string[], berry: boolean): ToolOutput[] {
	if (!hasJobs || !installsNodeModules(manager, yarnrc, berry)) return [];
	const probes = ["", ...members.slice(0, 20)].map((dir) => `${dir === "" ? "" : `${dir}/`}node_modules/.package-lock.json`);
	return [{ pattern: "node_modules/", probes, jobs: [], why: `${manager} installs the dependencies the jobs run there` }];
}

/** Yarn 2 and later: its own settings file (.yarnrc.yml), or corepack's `packageManager` naming yarn@2 and up. */
export function isYarnBerry(yarnrc: string | null, packageManager: string | null): boolean {
	return yarnrc !== null || /^yarn@([2-9]|[1-9]\d)/.test(packageManager ?? "");
}

/**
 * Yarn 2 and later (`berry`: see `isYarnBerry`) install into node_modules
 * only with `nodeLinker: node-modules` or `pnpm` in .yarnrc.yml; their
 * default, Plug'n'Play, keeps packages in .yarn/.
 */
export function installsNodeModules(manager: NodeManager, yarnrc: string | null, berry: boolean): boolean {
	if (manager !== "yarn" || !berry) return true;
	return yarnrc !== null && /^\s*nodeLinker\s*:\s*["']?(node-modules|pnpm)\b/m.test(yarnrc);
}

/** Cargo builds into target/ beside the manifest (a workspace's at its root); rustfmt writes nothing. */
export function rustOutputs(jobs: readonly StackJob[]): ToolOutput[] {
	const building = jobs.filter((job) => /\bcargo (clippy|test|build|check)\b/.test(job.run)).map((job) => job.name);
	return building.length > 0 ? [{ pattern: "/target/", probes: ["target/CACHEDIR.TAG"], jobs: building, why: "cargo builds into it" }] : [];
}
