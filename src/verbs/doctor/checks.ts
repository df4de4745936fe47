import { isAbsolute, join } from "node:path";
import { clip } from "../../text/clip.ts";
import type { VerbContext } from "../../contract/context.ts";
import { resolveJobs } from "../../config/jobs.ts";
import type { ConfigLoad } from "../../config/load.ts";
import { MCP_TARGETS, readEntry } from "../../agents/targets.ts";
import { commandResolves } from "../../agents/command.ts";
import { providersFor } from "../../agents/providers.ts";
import { staleWiring } from "../../agents/wiring.ts";
import { git } from "../../git/run.ts";
import { resolveTrunk } from "../../git/trunk.ts";
import { gitProblem, readWorkingState, type RepositoryLocation } from "../../git/repository.ts";
import { findExecutable } from "../../platform/process.ts";
import { oneLine } from "../../text/terminal.ts";
import { firstExecutable } from "./first-executable.ts";
import type { Check } from "./schema.ts";
import { actionFor, ref, sayFor, type Surface } from "../../hints/refer.ts";

/** git 2.31 added `rev-parse --path-format=absolute`, which discern relies on. */
const MIN_GIT: readonly [number, number] = [2, 31];

export async function checkGitVersion(ctx: VerbContext): Promise<Check> {
	// Somewhere that surely exists: ctx.cwd may not, and that is another check's finding.
	const result = await git(["--version"], "/");
	const title = "git is installed and recent";
	if (result.exitCode !== 0) {
		return { id: "git_version", title, state: "fail", detail: "git could not be run.", fix: "Install git 2.31 or newer and put it on PATH." };
	}
	const match = /(\d+)\.(\d+)/.exec(result.stdout);
	const [major, minor] = [Number(match?.[1] ?? 0), Number(match?.[2] ?? 0)];
	const recent = major > MIN_GIT[0] || (major === MIN_GIT[0] && minor >= MIN_GIT[1]);
	const version = result.stdout.trim();
	return recent
		? { id: "git_version", title, state: "ok", detail: version }
		: { id: "git_version", title, state: "fail", detail: `${version} is older than ${MIN_GIT.join(".")}.`, fix: "Upgrade git." };
}

export function checkRepository(repository: RepositoryLocation | null, reason: string, surface: Surface): Check {
	const title = "inside a git repository";
	return repository
		? { id: "repository", title, state: "ok", detail: `${repository.root} (${repository.location === "main" ? "main checkout" : "linked worktree"})` }
		: { id: "repository", title, state: "fail", detail: clip(oneLine(reason)), fix: surface === "cli" ? "Run discern inside a git checkout, or pass --cwd DIR." : "Pass an absolute `path` inside a git checkout." };
}

/** git must be able to read this checkout: ownership checks (safe.directory) and broken indexes stop it. */
export async function checkGitAccess(root: string): Promise<Check> {
	const title = "git can read this checkout";
	if (await readWorkingState(root)) return { id: "git_access", title, state: "ok", detail: "git status works here" };
	const problem = await gitProblem(root);
	const fix = problem.includes("dubious ownership") ? `git config --global --add safe.directory ${root}` : "Run `git status` here and repair what it reports.";
	return { id: "git_access", title, state: "fail", detail: oneLine(problem), fix };
}

export async function checkIdentity(ctx: VerbContext, root: string): Promise<Check> {
	// The caller's environment decides which global config git reads (HOME, GIT_CONFIG_GLOBAL).
	const env = { env: ctx.env };
	const [name, email] = await Promise.all([git(["config", "user.name"], root, env), git(["config", "user.email"], root, env)]);
	const title = "git identity configured";
	const missing = [name.stdout.trim() ? null : "user.name", email.stdout.trim() ? null : "user.email"].filter(Boolean);
	return missing.length === 0
		? { id: "identity", title, state: "ok", detail: `${name.stdout.trim()} <${email.stdout.trim()}>` }
		: {
				id: "identity",
				title,
				state: "warn",
				detail: `${missing.join(" and ")} not set: commits in task worktrees will fail.`,
				fix: `git config --global ${missing[0]} "…"`,
			};
}

export async function checkTrunk(ctx: VerbContext, root: string, config: ConfigLoad): Promise<Check> {
	const configured = config.state === "valid" ? config.config.repository.trunk : undefined;
	const trunk = await resolveTrunk(root, configured, ctx.env.DISCERN_TRUNK);
	const title = "trunk branch exists";
	if (trunk.name && trunk.exists) return { id: "trunk", title, state: "ok", detail: `${trunk.name} (from ${trunk.source.replaceAll("_", " ")})` };
	if (!trunk.name) {
		return { id: "trunk", title, state: "warn", detail: "No trunk could be determined (no commits yet?).", fix: "Make the first commit, or set [repository].trunk." };
	}
	const explicit = trunk.source === "config" || trunk.source === "env";
	return {
		id: "trunk",
		title,
		state: explicit ? "fail" : "warn",
		detail: `The trunk \`${clip(trunk.name)}\` (from ${trunk.source.replaceAll("_", " ")}) has no local branch.`,
		fix: explicit ? `Create the branch or correct [repository].trunk / DISCERN_TRUNK.` : "Make the first commit, or set [repository].trunk.",
	};
}

export function checkConfig(config: ConfigLoad, surface: Surface): Check {
	const title = "discern.toml is valid";
	if (config.state === "valid") return { id: "config", title, state: "ok", detail: config.path };
	if (config.state === "missing") {
		return { id: "config", title, state: "warn", detail: "No discern.toml: discern is not set up here yet.", fix: actionFor(surface)`${ref("setup")}` };
	}
	const lines = config.issues.map((issue) => `${issue.line ? `line ${issue.line}: ` : ""}${issue.message}`);
	return { id: "config", title, state: "fail", detail: lines.join("; "), fix: actionFor(surface)`${ref("config validate")}` };
}

export function checkTestJob(config: ConfigLoad): Check | null {
	if (config.state !== "valid") return null;
	const tests = resolveJobs(config.config).filter((job) => job.stage === "test" && job.commands.length > 0);
	const title = "a test job is wired";
	return tests.length > 0
		? { id: "test_job", title, state: "ok", detail: tests.map((job) => job.name).join(", ") }
		: { id: "test_job", title, state: "warn", detail: "No test-stage job: the gate cannot test anything.", fix: 'Add `test = "…"` under [jobs] in discern.toml.' };
}

/** Each job's commands start with something that exists: a typo here fails every gate run. */
export async function checkJobExecutables(ctx: VerbContext, root: string, config: ConfigLoad): Promise<Check[]> {
	if (config.state !== "valid") return [];
	const checks: Check[] = [];
	for (const job of resolveJobs(config.config)) {
		const missing: string[] = [];
		const found: string[] = [];
		for (const command of job.commands) {
			const program = firstExecutable(command);
			if (program === null) continue;
			const located = program.includes("/") ? ((await Bun.file(isAbsolute(program) ? program : join(root, program)).exists()) ? program : null) : findExecutable(program, ctx.env);
			(located ? found : missing).push(program);
		}
		const title = `job \`${job.name}\` can start`;
		checks.push(
			missing.length === 0
				? { id: `job:${job.name}`, title, state: "ok", detail: found.length > 0 ? `found ${[...new Set(found)].join(", ")}` : "no command to check" }
				: {
						id: `job:${job.name}`,
						title,
						state: "fail",
						detail: `not found on PATH: ${[...new Set(missing)].join(", ")}`,
						fix: `Install ${missing[0]}, or correct jobs.${job.name} in discern.toml.`,
					},
		);
	}
	return checks;
}

export function checkBinary(ctx: VerbContext, verbose: boolean): Check {
	const onPath = findExecutable("discern", ctx.env);
	const title = "discern is on PATH";
	if (onPath) return { id: "binary", title, state: "ok", detail: verbose ? `${onPath} (running ${process.execPath})` : onPath };
	return {
		id: "binary",
		title,
		state: "warn",
		detail: `\`discern\` is not on PATH (running ${process.execPath}); agents start the MCP server as \`discern mcp\`.`,
		fix: "Put the discern binary in a folder on PATH, e.g. ~/.local/bin.",
	};
}

export async function checkAgentWiring(ctx: VerbContext, root: string, config: ConfigLoad): Promise<Check> {
	const surface = ctx.surface;
	const snippets = sayFor(surface)`See ${ref("docs", { target: "mcp" })} for each editor's snippet.`;
	const wanted = config.state === "valid" ? config.config.project.agents : [];
	const title = "agents can reach the discern MCP server";
	if (config.state === "valid" && wanted.length > 0) {
		// Configured agents: every file refresh owns is current, and each entry's command starts something that exists.
		const [stale, unresolved] = await Promise.all([staleWiring(root, config.config), unresolvedCommands(ctx, root, wanted)]);
		if (stale.length > 0) {
			const detail = stale.map((file) => `${file.path} (${file.blocked ? file.blocked.reason : file.action === "create" ? "missing" : "stale"})`).join(", ");
			return { id: "agent_wiring", title, state: "warn", detail: clip(`not wired as refresh would: ${detail}`), fix: actionFor(surface)`${ref("refresh")}` };
		}
		if (unresolved.length > 0) {
			return { id: "agent_wiring", title, state: "warn", detail: clip(`${unresolved.join("; ")}: the editor cannot start the server`), fix: actionFor(surface)`${ref("refresh")}` };
		}
		return { id: "agent_wiring", title, state: "ok", detail: `wired for ${wanted.join(", ")}; each command resolves` };
	}
	const wired: string[] = [];
	for (const target of MCP_TARGETS) {
		const file = Bun.file(join(root, target.file));
		if ((await file.exists()) && target.declaresDiscern(await file.text())) wired.push(target.file);
	}
	if (wired.length === 0) {
		return { id: "agent_wiring", title, state: "warn", detail: "No agent MCP config declares a discern server.", fix: snippets };
	}
	return { id: "agent_wiring", title, state: "ok", detail: `wired in ${wired.join(", ")}` };
}

/** Entries whose `command` is neither on the PATH discern sees nor an existing absolute file. */
async function unresolvedCommands(ctx: VerbContext, root: string, agents: readonly string[]): Promise<string[]> {
	const found: string[] = [];
	for (const provider of providersFor(agents)) {
		const file = Bun.file(join(root, provider.mcp.file));
		if (!(await file.exists())) continue;
		const entry = readEntry(provider.mcp.format, await file.text(), provider.mcp.path) as { command?: unknown } | undefined;
		const command = typeof entry?.command === "string" ? entry.command : "";
		if (!(await commandResolves(command, ctx.env))) found.push(`${provider.mcp.file} starts \`${clip(command, 200)}\`, which is not on PATH`);
	}
	return found;
}
