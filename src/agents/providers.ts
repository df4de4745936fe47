import type { AGENTS } from "../config/schema.ts";
import { isRecord } from "../contract/record.ts";
import { hookServer, isDiscernServer } from "./command.ts";

export type Agent = (typeof AGENTS)[number];

/** What `refresh` does to each file. */
export const FILE_ACTIONS = ["create", "update", "unchanged"] as const;
/** What `uninstall` does to each (its inverse): delete it, take discern's entry out of it, move setup's fold of a person's file back, or leave it. */
export const UNWIRE_ACTIONS = ["delete", "strip", "move", "keep"] as const;

/** The file every agent reads its briefing from (compiled by `refresh`). */
export const INSTRUCTIONS_FILE = "AGENTS.md";
/** What a pointer file (CLAUDE.md, GEMINI.md) holds, and nothing else. */
export const POINTER_TEXT = `@${INSTRUCTIONS_FILE}\n`;

/** Is this text the pointer discern writes (line endings and a byte-order mark aside)? */
export function isPointer(text: string): boolean {
	return text.trim() === POINTER_TEXT.trim();
}

/** How discern's server is started: `command` then `args` (the last is always `mcp`). */
export interface ServerCommand {
	command: string;
	args: string[];
}

/** Where an agent looks for its MCP servers and what discern's entry there is. */
export interface McpWiring {
	file: string;
	format: "jsonc" | "toml";
	/** The key path of discern's entry (`mcpServers.discern`, `[mcp_servers.discern]`). */
	path: readonly string[];
	/** discern's entry as the agent wants it. */
	entry: (server: ServerCommand) => Record<string, unknown>;
}

/** A session-start hook in a JSON settings file: an array of groups at `path`, discern's group runs `discern worktree ensure`. */
export interface HookWiring {
	file: string;
	path: readonly string[];
	group: (commandLine: string) => Record<string, unknown>;
	/** The command lines of a group, to recognise discern's among the person's own. */
	commandsOf: (group: unknown) => string[];
}

/**
 * One entry per agent: the only source for which files discern writes,
 * merges into, checks and removes for it. `refresh` writes them, `done`,
 * `status` and `doctor` check them. Adding an agent is adding an entry here
 * (and its name to AGENTS in config/schema.ts).
 */
export interface Provider {
	agent: Agent;
	label: string;
	/** The agent's own instruction file, written as an `@AGENTS.md` pointer; absent when it reads AGENTS.md itself. */
	pointer?: string;
	mcp: McpWiring;
	hook?: HookWiring;
	/** The manual page with its editor's configuration (`discern docs mcp/<page>`). */
	page: string;
	/** The programs whose presence on PATH tells `setup` this agent is used here, most specific first. */
	clis: readonly string[];
	/** What finding one of `clis` means, said in setup's proposal when it is less than obvious. */
	cliNote?: string;
}

const mcpServers = (file: string, container = "mcpServers", extra: Record<string, unknown> = {}): McpWiring => ({
	file,
	format: "jsonc",
	path: [container, "discern"],
	entry: (server) => ({ ...extra, command: server.command, args: server.args }),
});

const claudeHook: HookWiring = {
	file: ".claude/settings.json",
	path: ["hooks", "SessionStart"],
	// Claude Code: `hooks.SessionStart` holds groups ({ matcher, hooks: [{ type: "command", command }] }); "startup" is a new session.
	group: (commandLine) => ({ matcher: "startup", hooks: [{ type: "command", command: commandLine }] }),
	commandsOf: (group) => {
		const hooks = typeof group === "object" && group !== null ? (group as { hooks?: unknown }).hooks : undefined;
		if (!Array.isArray(hooks)) return [];
		return hooks.flatMap((hook) =>
			typeof hook === "object" && hook !== null && typeof (hook as { command?: unknown }).command === "string" ? [(hook as { command: string }).command] : [],
		);
	},
};

export const PROVIDERS: readonly Provider[] = [
	{ agent: "claude_code", label: "Claude Code", pointer: "CLAUDE.md", mcp: mcpServers(".mcp.json"), hook: claudeHook, page: "claude-code", clis: ["claude"] },
	{
		agent: "codex",
		label: "Codex",
		mcp: { file: ".codex/config.toml", format: "toml", path: ["mcp_servers", "discern"], entry: (server) => ({ command: server.command, args: server.args }) },
		page: "codex",
		clis: ["codex"],
	},
	// `cursor-agent` is Cursor's CLI agent; `cursor` is the editor's shell command.
	{ agent: "cursor", label: "Cursor", mcp: mcpServers(".cursor/mcp.json"), page: "cursor", clis: ["cursor-agent", "cursor"] },
	{ agent: "gemini", label: "Gemini CLI", pointer: "GEMINI.md", mcp: mcpServers(".gemini/settings.json"), page: "gemini", clis: ["gemini"] },
	{
		agent: "copilot",
		label: "GitHub Copilot (VS Code)",
		mcp: mcpServers(".vscode/mcp.json", "servers", { type: "stdio" }),
		page: "vscode",
		// The Copilot CLI reads AGENTS.md; `gh copilot` (an extension of gh) cannot be seen without running gh.
		clis: ["copilot"],
		cliNote: "GitHub's Copilot CLI; it reads AGENTS.md, and the MCP entry goes to .vscode/mcp.json for VS Code",
	},
];

/** The instruction files discern generates for these providers: AGENTS.md and each pointer (once each). */
export function generatedFiles(providers: readonly Provider[] = PROVIDERS): string[] {
	return [...new Set([INSTRUCTIONS_FILE, ...providers.flatMap((provider) => (provider.pointer ? [provider.pointer] : []))])];
}

/** The providers of the configured agents, in registry order. */
export function providersFor(agents: readonly string[]): Provider[] {
	return PROVIDERS.filter((provider) => agents.includes(provider.agent));
}

export interface DetectedAgent {
	agent: Agent;
	/** The program found, and where. */
	program: string;
	path: string;
	/** Why setup proposes it, in a few words. */
	reason: string;
}

/** The agents whose CLI is on this PATH, in registry order: what `setup` proposes when `--agents` is not given. */
export function detectAgents(which: (program: string) => string | null): DetectedAgent[] {
	return PROVIDERS.flatMap((provider) => {
		for (const program of provider.clis) {
			const path = which(program);
			if (path !== null)
				return [{ agent: provider.agent, program, path, reason: `\`${program}\` is on PATH (${path})${provider.cliNote ? `: ${provider.cliNote}` : ""}` }];
		}
		return [];
	});
}

/** Every path discern may write for any agent (the write surface), AGENTS.md first. */
export function declaredPaths(): string[] {
	return [
		INSTRUCTIONS_FILE,
		...new Set(
			PROVIDERS.flatMap((provider) => [provider.pointer, provider.mcp.file, provider.hook?.file].filter((path): path is string => path !== undefined)),
		),
	];
}

/**
 * Is this hook command line discern's `worktree ensure`: exactly the line
 * refresh writes (`hookServer`, command.ts)? A person's own line that
 * mentions `worktree ensure` (`just worktree ensure && echo ready`) is theirs.
 */
export function isEnsureHook(commandLine: string): boolean {
	return hookServer(commandLine, ENSURE_WORDS) !== null;
}

export const ENSURE_WORDS = ["worktree", "ensure"] as const;

/**
 * Is this exactly the entry refresh writes under discern's key: a command
 * refresh could have written (`isDiscernServer`) and the agent's fixed keys,
 * nothing more (no `env`, no `cwd`)? Anything else is stale: refresh replaces
 * it whole, done fails on it, doctor does not start it.
 */
export function isDiscernEntry(mcp: McpWiring, entry: unknown): entry is { command: string; args: string[] } {
	if (!isRecord(entry)) return false;
	const { command, args } = entry as { command?: unknown; args?: unknown };
	if (typeof command !== "string" || !Array.isArray(args) || !isDiscernServer(command, args)) return false;
	return Bun.deepEquals(entry, mcp.entry({ command, args: args as string[] }), true);
}
