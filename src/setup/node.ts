import { parse as parseJsonc } from "jsonc-parser";
import { isRecord } from "../contract/record.ts";
import { noun } from "../text/plural.ts";
import { type Folder, type FolderReader, inFolder } from "./folder.ts";
import { isCheckOnlyFormatter } from "./formatters.ts";
import { nodeNeeds } from "./installs.ts";
import { chainedRunner, nodeTestRunner } from "./node-tests.ts";
import { BIOME, DPRINT, ESLINT, OXLINT, PRETTIER, type Tool, whyInUse } from "./node-tools.ts";
import { installsNodeModules, isYarnBerry, nodeOutputs } from "./outputs.ts";
import { pnpmWorkspacePackages } from "./pnpm-workspace.ts";
import { combine, expandMembers, type JobName, type NodeManager, type StackFinding, type StackJob, shellPath, type WorkspaceMember } from "./shared.ts";

/**
 * For each job, the script names that mean it, most conventional first.
 * `test:types` is unjs's name (giget chains `pnpm test:types` into its "test"
 * script): the type check the test job leaves to a job of its own is that script.
 */
const NODE_SCRIPTS: ReadonlyArray<readonly [JobName, readonly string[]]> = [
	["format", ["format", "fmt"]],
	["build", ["build"]],
	["lint", ["lint"]],
	["typecheck", ["typecheck", "type-check", "tsc", "check-types", "test:types"]],
	["test", ["test"]],
];

/** Lockfiles in the order they are trusted when a folder carries several. */
const NODE_LOCKFILES: ReadonlyArray<readonly [string, NodeManager]> = [
	["bun.lock", "bun"],
	["bun.lockb", "bun"],
	["pnpm-lock.yaml", "pnpm"],
	["yarn.lock", "yarn"],
	["npm-shrinkwrap.json", "npm"],
	["package-lock.json", "npm"],
];

/** How each manager runs a binary the project installed. */
const EXEC: Readonly<Record<NodeManager, string>> = { npm: "npx", pnpm: "pnpm exec", yarn: "yarn", bun: "bunx" };

interface Manifest {
	name: string | null;
	/** Usable scripts only: string, non-empty, not npm's failing placeholder. */
	scripts: Map<string, string>;
	deps: Set<string>;
	keys: Set<string>;
	packageManager: string | null;
	workspaces: string[];
}

export async function detectNode(folder: Folder, reader: FolderReader): Promise<StackFinding | null> {
	if (!folder.has("package.json")) return null;
	const manifest = readManifest(folder.text("package.json"));
	const { manager, evidence: managerEvidence, locked } = nodeManager(folder, manifest.packageManager);
	const jobs = await nodeJobs(folder, reader, manifest, manager, managerEvidence);
	const members = await workspaceMembers(folder, reader, manifest, manager);
	const memberDirs = members.map((member) => (folder.rel === "" ? member.dir : member.dir.slice(folder.rel.length + 1)));
	const gated = jobs.length > 0 || members.some((member) => member.gate);
	const yarnrc = folder.text(".yarnrc.yml");
	// Yarn 2 and later: its own settings file, or corepack's `packageManager` naming yarn@2 and up.
	const berry = manager === "yarn" && isYarnBerry(yarnrc, manifest.packageManager);
	return {
		kind: "node",
		evidence: inFolder(folder.rel, "package.json"),
		manager,
		jobs,
		outputs: nodeOutputs(manager, yarnrc, gated, memberDirs, berry),
		needs: nodeNeeds(manager, managerEvidence, {
			locked,
			needsInstall: gated && (manifest.deps.size > 0 || members.length > 0),
			berry,
			installsNodeModules: installsNodeModules(manager, yarnrc, berry),
		}),
		projectName: manifest.name,
		members,
	};
}

async function nodeJobs(folder: Folder, reader: FolderReader, manifest: Manifest, manager: NodeManager, managerEvidence: string): Promise<StackJob[]> {
	const at = (name: string) => inFolder(folder.rel, name);
	const exec = EXEC[manager];
	const uses = (tool: Tool) => whyInUse(tool, folder, manifest.deps, manifest.keys);
	const via = (tool: Tool, run: string) => {
		const reason = uses(tool);
		return reason === null ? null : { run: `${exec} ${run}`, reason };
	};
	const jobs: StackJob[] = [];
	for (const [name, candidates] of NODE_SCRIPTS) {
		const script = candidates.find((candidate) => manifest.scripts.has(candidate));
		if (script) {
			jobs.push(scriptJob(name, script, manifest.scripts.get(script) ?? "", manager, at("package.json")));
			continue;
		}
		if (name === "format") jobs.push(...combine(name, [via(BIOME, "biome format --write ."), via(PRETTIER, "prettier --write ."), via(DPRINT, "dprint fmt")]));
		if (name === "lint") jobs.push(...combine(name, [via(BIOME, "biome lint ."), via(ESLINT, "eslint ."), via(OXLINT, "oxlint")]));
		if (name === "typecheck" && folder.has("tsconfig.json") && manifest.deps.has("typescript")) {
			const references = solutionReferences(folder.text("tsconfig.json"));
			jobs.push(
				references
					? {
							name,
							run: `${exec} tsc -b`,
							reason: `${at("tsconfig.json")} has no files of its own, only references (${listed(references)}): \`tsc -b\` checks them`,
						}
					: { name, run: `${exec} tsc --noEmit`, reason: `${at("tsconfig.json")} and the "typescript" dependency` },
			);
		}
		if (name === "test") {
			const runner = await nodeTestRunner({ folder, reader, manager, managerEvidence, deps: manifest.deps, via, uses });
			if (runner) jobs.push({ name, ...runner });
		}
	}
	return jobs;
}

/**
 * The job a package script means. A "test" script that chains other checks
 * before its runner proposes the runner alone; a "format" script that only
 * checks (`prettier --check .`) is a check-stage job, since the fix stage writes.
 */
function scriptJob(name: JobName, script: string, body: string, manager: NodeManager, manifest: string): StackJob {
	const reason = `${manifest} has a "${script}" script`;
	const chain = name === "test" ? chainedRunner(body) : null;
	if (chain) {
		const others = chain.others.map((command) => `\`${command}\``).join(", ");
		return {
			name,
			run: `${EXEC[manager]} ${chain.runner}`,
			reason: `${reason} that chains ${others} with its runner: the test job runs \`${chain.runner}\` alone and leaves those checks to their own jobs`,
		};
	}
	if (name === "format" && isCheckOnlyFormatter(body)) {
		return {
			name,
			stage: "check",
			run: scriptCommand(manager, script),
			reason: `${reason} that only checks (\`${body}\`): a check-stage job, since the fix stage writes`,
		};
	}
	return { name, run: scriptCommand(manager, script), reason };
}

/**
 * The projects a "solution" tsconfig.json references, or null when it is not
 * one. A solution lists no files of its own (`"files": []`, no `include`) and
 * references the projects that hold them, as Vite's TypeScript templates and
 * most TypeScript monorepos do: `tsc --noEmit` on it checks nothing and exits
 * 0, while `tsc -b` checks every referenced project (and is what those
 * projects' own build scripts run; `-b --noEmit` is refused before TypeScript 5.6).
 */
export function solutionReferences(text: string | null): string[] | null {
	if (text === null) return null;
	const config: unknown = parseJsonc(text.replace(/^\uFEFF/, ""), [], { allowTrailingComma: true });
	if (!isRecord(config) || !Array.isArray(config.files) || config.files.length > 0 || "include" in config || !Array.isArray(config.references)) return null;
	const paths = config.references.flatMap((reference) =>
		isRecord(reference) && typeof reference.path === "string" ? [reference.path.replace(/^\.\//, "")] : [],
	);
	return paths.length > 0 ? paths : null;
}

function listed(paths: readonly string[]): string {
	return paths.length <= 3 ? paths.join(", ") : `${paths.slice(0, 2).join(", ")} and ${paths.length - 2} more`;
}

/** Never throws: a broken or oversized package.json still means "node", just without scripts. */
export function readManifest(text: string | null): Manifest {
	const empty: Manifest = { name: null, scripts: new Map(), deps: new Set(), keys: new Set(), packageManager: null, workspaces: [] };
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
	if (isRecord(parsed.scripts)) {
		for (const [name, command] of Object.entries(parsed.scripts)) {
			if (typeof command === "string" && isUsableScript(command)) scripts.set(name, command);
		}
	}
	const deps = new Set<string>();
	for (const field of ["dependencies", "devDependencies", "optionalDependencies"]) {
		const declared = parsed[field];
		if (isRecord(declared)) for (const name of Object.keys(declared)) deps.add(name);
	}
	const workspaces = Array.isArray(parsed.workspaces) ? parsed.workspaces : isRecord(parsed.workspaces) ? parsed.workspaces.packages : [];
	return {
		name: typeof parsed.name === "string" && parsed.name.trim() !== "" ? parsed.name : null,
		scripts,
		deps,
		keys: new Set(Object.keys(parsed)),
		packageManager: typeof parsed.packageManager === "string" ? parsed.packageManager : null,
		workspaces: Array.isArray(workspaces) ? workspaces.filter((item): item is string => typeof item === "string") : [],
	};
}

/** `npm init` writes a test script that always fails; proposing it would make the gate red on day one. */
function isUsableScript(command: string): boolean {
	return command.trim() !== "" && !/no test specified/.test(command);
}

/** The lockfile decides; without one, corepack's `packageManager` field states the intent; else npm. With the file that says so. */
function nodeManager(folder: Folder, packageManager: string | null): { manager: NodeManager; evidence: string; locked: "tracked" | "untracked" | "none" } {
	// A lockfile git does not track names the manager, yet a new worktree will not have it: its install cannot be frozen.
	for (const [lockfile, manager] of NODE_LOCKFILES)
		if (folder.has(lockfile)) return { manager, evidence: inFolder(folder.rel, lockfile), locked: folder.tracked(lockfile) ? "tracked" : "untracked" };
	const declared = packageManager?.split("@")[0];
	const manifest = inFolder(folder.rel, "package.json");
	if (declared === "pnpm" || declared === "yarn" || declared === "bun")
		return { manager: declared, evidence: `the "packageManager" field of ${manifest}`, locked: "none" };
	return { manager: "npm", evidence: `${manifest} without a lockfile`, locked: "none" };
}

function scriptCommand(manager: NodeManager, script: string): string {
	// `bun test` would start Bun's own runner instead of the script, so every manager gets `run`, except npm's own `npm test`.
	if (manager === "npm" && script === "test") return "npm test";
	return `${manager} run ${script}`;
}

// ---------------------------------------------------------------- workspaces

/** The scripts a package's own gate runs: `check` alone when it has one (it is the package's own summary), else these in order. */
const GATE_SCRIPTS = ["lint", "typecheck", "type-check", "test"] as const;

async function workspaceMembers(folder: Folder, reader: FolderReader, manifest: Manifest, manager: NodeManager): Promise<WorkspaceMember[]> {
	const pnpm = pnpmWorkspacePackages(folder.text("pnpm-workspace.yaml"));
	const patterns = pnpm.length > 0 ? pnpm : manifest.workspaces;
	if (patterns.length === 0) return [];
	const declaredIn = pnpm.length > 0 ? inFolder(folder.rel, "pnpm-workspace.yaml") : inFolder(folder.rel, "package.json");
	const dirs = await expandMembers(reader, folder.rel, patterns, "package.json");
	const members: WorkspaceMember[] = [];
	for (const dir of dirs) {
		const own = readManifest((await reader.read(dir))?.text("package.json") ?? null);
		const scripts = own.scripts.has("check") ? ["check"] : GATE_SCRIPTS.filter((script) => own.scripts.has(script));
		const gate = scripts.map((script) => memberScript(manager, dir, own.name, script)).join(" && ");
		members.push({
			dir,
			name: own.name ?? dir.split("/").pop() ?? dir,
			...(gate !== "" ? { gate } : {}),
			reason: `${declaredIn} lists it as a workspace package${scripts.length > 0 ? `; its gate runs its ${scripts.map((script) => `"${script}"`).join(", ")} ${noun(scripts.length, "script")}` : ""}`,
		});
	}
	return members;
}

/** How a developer of each manager runs one workspace package's script from the root. */
function memberScript(manager: NodeManager, folder: string, name: string | null, script: string): string {
	// A folder's name is the repository's: as one sh word, whatever it holds.
	const dir = shellPath(folder);
	switch (manager) {
		case "npm":
			return script === "test" ? `npm test -w ${dir}` : `npm run ${script} -w ${dir}`;
		case "pnpm":
			return `pnpm --filter ${name && isShellWord(name) ? name : `./${dir}`} run ${script}`;
		case "yarn":
			return name && isShellWord(name) ? `yarn workspace ${name} run ${script}` : `cd ${dir} && yarn run ${script}`;
		case "bun":
			return `bun run --cwd ${dir} ${script}`;
	}
}

/** A package name that needs no quoting in `sh`. */
function isShellWord(name: string): boolean {
	return /^[A-Za-z0-9@/._-]+$/.test(name);
}
