import { join } from "node:path";
import { isDiscernServer } from "../../agents/command.ts";
import { type ProbeResult, probeServer } from "../../agents/probe.ts";
import { isDiscernEntry, providersFor } from "../../agents/providers.ts";
import { MCP_TARGETS, readEntry } from "../../agents/targets.ts";
import { staleWiring } from "../../agents/wiring.ts";
import { resolveJobs } from "../../config/jobs.ts";
import type { ConfigLoad } from "../../config/load.ts";
import type { VerbContext } from "../../contract/context.ts";
import { isRecord } from "../../contract/record.ts";
import { ref, type Say, type Surface } from "../../contract/refer.ts";
import { workerAnswers } from "../../git/evidence/hash-jobs.ts";
import { gitProblem, type RepositoryLocation, readWorkingState } from "../../git/repository.ts";
import { git } from "../../git/run.ts";
import { findExecutable } from "../../platform/process.ts";
import { gatePrograms, worktreeSetupHint } from "../../setup/after-setup.ts";
import { detectStack, trackedPaths } from "../../setup/detect.ts";
import { clip } from "../../text/clip.ts";
import { shellCommand } from "../../text/shell-quote.ts";
import { oneLine } from "../../text/terminal.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { mainCheckoutOf } from "../../worktree/git-worktrees.ts";
import type { Check } from "./schema.ts";

/** git 2.31 added `rev-parse --path-format=absolute`, which discern relies on. */
const MIN_GIT: readonly [number, number] = [2, 31];

export async function checkGitVersion(_ctx: VerbContext): Promise<Check> {
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
		: {
				id: "repository",
				title,
				state: "fail",
				detail: clip(oneLine(reason)),
				fix: surface === "cli" ? "Run discern inside a git checkout, or pass --cwd DIR." : "Pass an absolute `path` inside a git checkout.",
			};
}

/** git must be able to read this checkout: ownership checks (safe.directory) and broken indexes stop it. */
export async function checkGitAccess(root: string): Promise<Check> {
	const title = "git can read this checkout";
	if (await readWorkingState(root)) return { id: "git_access", title, state: "ok", detail: "git status works here" };
	const problem = await gitProblem(root);
	const fix = problem.includes("dubious ownership")
		? shellCommand("git", "config", "--global", "--add", "safe.directory", root)
		: "Run `git status` here and repair what it reports.";
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
	const { trunk } = await resolveTrunk(root, configured, ctx.env.DISCERN_TRUNK);
	const title = "trunk branch exists";
	if (trunk.name && trunk.exists) return { id: "trunk", title, state: "ok", detail: `${trunk.name} (from ${trunk.source.replaceAll("_", " ")})` };
	if (!trunk.name) {
		return {
			id: "trunk",
			title,
			state: "warn",
			detail: "No trunk could be determined (no commits yet?).",
			fix: "Make the first commit, or set [repository].trunk.",
		};
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

/** `action` is the caller's `ctx.action`: a fix is the command itself. */
export function checkConfig(config: ConfigLoad, action: Say): Check {
	const title = "discern.toml is valid";
	if (config.state === "valid") return { id: "config", title, state: "ok", detail: config.path };
	if (config.state === "missing") {
		return { id: "config", title, state: "warn", detail: "No discern.toml: discern is not set up here yet.", fix: action`${ref("setup")}` };
	}
	const lines = config.issues.map((issue) => `${issue.line ? `line ${issue.line}: ` : ""}${issue.message}`);
	return { id: "config", title, state: "fail", detail: lines.join("; "), fix: action`${ref("config validate")}` };
}

export function checkTestJob(config: ConfigLoad): Check | null {
	if (config.state !== "valid") return null;
	const tests = resolveJobs(config.config).filter((job) => job.stage === "test" && job.commands.length > 0);
	const title = "a test job is wired";
	return tests.length > 0
		? { id: "test_job", title, state: "ok", detail: tests.map((job) => job.name).join(", ") }
		: {
				id: "test_job",
				title,
				state: "warn",
				detail: "No test-stage job: the gate cannot test anything.",
				fix: 'Add `test = "…"` under [jobs] in discern.toml.',
			};
}

/**
 * Each job's commands start with something that exists: a typo here fails
 * every gate run. Looked up as `setup verify` does (PATH, node_modules/.bin,
 * the project's virtualenv, a runner's script or binary); in a linked
 * worktree, a program the main checkout has is one the worktree's setup has
 * not installed yet, and the fix names that setup.
 */
export async function checkJobExecutables(ctx: VerbContext, repository: RepositoryLocation, config: ConfigLoad): Promise<Check[]> {
	if (config.state !== "valid") return [];
	const jobs = resolveJobs(config.config);
	const commands = jobs.flatMap((job) => job.commands.map((command) => ({ owner: job.name, command })));
	const programs = await gatePrograms(repository.root, await mainCheckoutOf(repository), commands, ctx.env);
	const installs =
		programs.some((check) => check.afterSetup) && config.config.worktree.setup.ensure.length === 0
			? (await trackedPaths(repository.root).then((isTracked) => detectStack(repository.root, isTracked ? { isTracked } : {}))).installs
			: [];
	return jobs.map((job): Check => {
		const own = programs.filter((check) => check.owner === job.name);
		const missing = own.filter((check) => !check.found);
		const title = `job \`${job.name}\` can start`;
		if (missing.length === 0) {
			const found = [...new Set(own.map((check) => check.program))];
			return { id: `job:${job.name}`, title, state: "ok", detail: found.length > 0 ? `found ${found.join(", ")}` : "no command to check" };
		}
		const first = missing[0];
		return {
			id: `job:${job.name}`,
			title,
			state: "fail",
			detail: clip(missing.map((check) => `\`${check.program}\`: ${check.detail}`).join("; ")),
			fix: first?.afterSetup
				? worktreeSetupHint(ctx.say, config.config.worktree.setup, installs)
				: `Install ${first?.program ?? "the program"}, or correct jobs.${job.name} in discern.toml.`,
		};
	});
}

/** The evidence reads many files in worker threads (git/evidence/hash-jobs.ts): a binary built without its worker falls back to one thread. */
export async function checkEvidenceWorkers(): Promise<Check> {
	const title = "done reads large trees on every core";
	return (await workerAnswers())
		? { id: "evidence_workers", title, state: "ok", detail: "the evidence's worker thread starts and answers" }
		: {
				id: "evidence_workers",
				title,
				state: "warn",
				detail: "the evidence's worker thread does not start here: done reads every file in one thread, slower on a large tree",
				fix: "Use a discern binary built by `bun run build.ts` (it carries the worker as an entry of its own).",
			};
}

export function checkBinary(ctx: VerbContext, verbose: boolean): Check {
	const onPath = findExecutable("discern", ctx.env);
	const title = "discern is on PATH";
	if (onPath) return { id: "binary", title, state: "ok", detail: verbose ? `${onPath} (running ${process.execPath})` : onPath };
	return {
		id: "binary",
		title,
		state: "warn",
		detail: `\`discern\` is not on PATH (running ${process.execPath}): a terminal cannot run \`discern\`, and agents' configs must name the binary by its absolute path (refresh writes it so).`,
		fix: "Put the discern binary in a folder on PATH, e.g. ~/.local/bin.",
	};
}

export async function checkAgentWiring(ctx: VerbContext, root: string, config: ConfigLoad): Promise<Check> {
	const snippets = ctx.say`See ${ref("docs", { target: "mcp" })} for each editor's snippet.`;
	const wanted = config.state === "valid" ? config.config.project.agents : [];
	if (config.state === "valid" && wanted.length > 0) {
		// Configured agents: every file refresh owns is current (whether each server starts is its own check: checkServers).
		const title = "agent files are as refresh writes them";
		const stale = await staleWiring(root, config.config, ctx.verbs);
		if (stale.length > 0) {
			const detail = stale.map((file) => `${file.path} (${file.blocked ? file.blocked.reason : file.action === "create" ? "missing" : "stale"})`).join(", ");
			return { id: "agent_wiring", title, state: "warn", detail: clip(`not wired as refresh would: ${detail}`), fix: ctx.action`${ref("refresh")}` };
		}
		return { id: "agent_wiring", title, state: "ok", detail: `wired for ${wanted.join(", ")}` };
	}
	const title = "an agent MCP config declares discern";
	const wired: string[] = [];
	for (const target of MCP_TARGETS) {
		const file = Bun.file(join(root, target.file));
		if ((await file.exists()) && target.declaresDiscern(await file.text())) wired.push(target.file);
	}
	if (wired.length === 0) {
		return { id: "agent_wiring", title, state: "warn", detail: "No agent MCP config declares a discern server.", fix: snippets };
	}
	// Only configured agents' servers are started (checkServers): these files are the person's own.
	return { id: "agent_wiring", title, state: "ok", detail: `wired in ${wired.join(", ")} (not started: [project].agents lists no agent)` };
}

/**
 * For each configured agent, start the server its MCP config names, the way
 * the editor would, and complete an MCP `initialize`: proof that the wiring
 * works, not that a file exists. Agents run side by side; agents naming the
 * same command, args and env share one start. Doctor only: it takes a moment.
 */
export async function checkServers(ctx: VerbContext, root: string, config: ConfigLoad, options: { timeoutMs?: number } = {}): Promise<Check[]> {
	if (config.state !== "valid") return [];
	const refresh = ctx.action`${ref("refresh")}`;
	const probes = new Map<string, Promise<ProbeResult>>();
	return Promise.all(
		providersFor(config.config.project.agents).map(async (provider): Promise<Check> => {
			const id = `mcp:${provider.agent}`;
			const title = `${provider.label} can start the discern MCP server`;
			const file = provider.mcp.file;
			const text = await Bun.file(join(root, file))
				.text()
				.catch(() => null);
			const entry = text === null ? undefined : readEntry(provider.mcp.format, text, provider.mcp.path);
			if (entry === undefined) {
				return {
					id,
					title,
					state: "warn",
					detail: `${file} ${text === null ? "does not exist" : "has no discern server entry"}: ${provider.label} does not know the server.`,
					fix: refresh,
				};
			}
			const server = serverOf(entry);
			if (!server)
				return { id, title, state: "fail", detail: `${file}: the discern entry has no \`command\` string and \`args\` list of strings.`, fix: refresh };
			if (isDiscernServer(server.command, server.args) && !isDiscernEntry(provider.mcp, entry)) {
				// Never started: keys refresh does not write (`env`, `cwd`) change what the server runs on.
				const extra = Object.keys(entry as object).filter((key) => !(key in provider.mcp.entry(server)));
				return {
					id,
					title,
					state: "fail",
					detail: clip(
						`${file}: the discern entry is not what refresh writes${extra.length > 0 ? ` (keys of its own: ${extra.join(", ")})` : ""}: not started.`,
					),
					fix: refresh,
				};
			}
			if (!isDiscernServer(server.command, server.args)) {
				// Never started: a command refresh would not write (a shell, extra arguments) is not discern's to run.
				const named = clip([server.command, ...server.args].map((word) => (/\s/.test(word) ? JSON.stringify(word) : word)).join(" "), 300);
				return {
					id,
					title,
					state: "fail",
					detail: clip(
						`${file} names \`${named}\`, which is not a command refresh writes (\`discern mcp\`, an absolute path to discern then \`mcp\`, or bun and discern's src/main.ts then \`mcp\`): not started.`,
					),
					fix: refresh,
				};
			}
			const key = JSON.stringify([server.command, server.args, server.env]);
			let probe = probes.get(key);
			if (!probe) {
				probe = probeServer(server.command, server.args, {
					cwd: root,
					env: { ...ctx.env, ...server.env },
					clientVersion: ctx.version,
					...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
				});
				probes.set(key, probe);
			}
			const result = await probe;
			const line = clip([server.command, ...server.args].map((word) => (/\s/.test(word) ? JSON.stringify(word) : word)).join(" "), 300);
			if (!result.ok) {
				const fix =
					result.reason === "not_found"
						? ctx.say`Run ${ref("refresh")}: it writes a command that resolves (the absolute path of the binary when \`discern\` is not on PATH).`
						: `Point the discern entry in ${file} at the discern binary (${refresh} writes one).`;
				return { id, title, state: "fail", detail: clip(`${file} starts \`${line}\`: ${result.detail}.`), fix };
			}
			const answered = `\`${line}\` answered \`initialize\` as ${result.name} ${result.version} (MCP ${result.protocol})`;
			if (result.name !== "discern")
				return {
					id,
					title,
					state: "warn",
					detail: clip(`${file}: ${answered}, which is not discern.`),
					fix: `Point the discern entry in ${file} at the discern binary (${refresh} writes one).`,
				};
			if (!result.exited)
				return {
					id,
					title,
					state: "warn",
					detail: clip(`${file}: ${answered}, but kept running after its stdin closed (it was killed).`),
					fix: "Check the command: an MCP stdio server exits when its client closes stdin.",
				};
			const other = result.version !== ctx.version ? ` (this discern is ${ctx.version})` : "";
			return { id, title, state: "ok", detail: clip(`${answered}${other}`) };
		}),
	);
}

/** The command, args and env an MCP entry names; null when malformed. */
function serverOf(entry: unknown): { command: string; args: string[]; env: Record<string, string> } | null {
	if (!isRecord(entry)) return null;
	const { command, args, env } = entry;
	if (typeof command !== "string" || command.trim() === "") return null;
	const list = args === undefined ? [] : args;
	if (!Array.isArray(list) || !list.every((arg) => typeof arg === "string")) return null;
	const vars: Record<string, string> = {};
	if (isRecord(env)) {
		for (const [key, value] of Object.entries(env)) if (typeof value === "string") vars[key] = value;
	}
	return { command, args: list, env: vars };
}
