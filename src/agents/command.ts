import { basename, isAbsolute } from "node:path";
import { findExecutable } from "../platform/process.ts";
import type { ServerCommand } from "./providers.ts";

/** The program running now: a compiled discern binary, or bun running discern's source. */
export interface RunningBinary {
	execPath: string;
	/** The script bun runs (`src/main.ts`); null for a compiled binary. */
	script: string | null;
}

/** Read once by the caller that may touch `process` (refresh's index.ts), never by a core. */
export function runningBinary(): RunningBinary {
	const main = typeof Bun !== "undefined" ? Bun.main : "";
	const compiled = main.startsWith("/$bunfs/") || main.startsWith("B:\\~BUN") || basename(process.execPath).startsWith("discern");
	return { execPath: process.execPath, script: compiled ? null : main };
}

export interface ChosenCommand extends ServerCommand {
	/** Why this command: said in refresh's result. */
	why: string;
	via: "path" | "binary" | "source";
}

/**
 * The command an agent's config names to start `discern mcp`: `discern` when
 * the PATH discern sees has it (agents usually see the same PATH), else the
 * absolute path of the running binary (or bun and the source it runs), which
 * resolves wherever the agent starts it.
 */
export function chooseCommand(env: Readonly<Record<string, string | undefined>>, running: RunningBinary): ChosenCommand {
	const onPath = findExecutable("discern", env);
	if (onPath) return { command: "discern", args: ["mcp"], via: "path", why: `\`discern\` is on PATH (${onPath})` };
	if (running.script === null) return { command: running.execPath, args: ["mcp"], via: "binary", why: `\`discern\` is not on PATH, so the absolute path of the running binary` };
	return { command: running.execPath, args: [running.script, "mcp"], via: "source", why: "`discern` is not on PATH and discern runs from source, so bun and the absolute path of its entry" };
}

/** Does a configured command start something that exists (on PATH, or an absolute file)? */
export async function commandResolves(command: string, env: Readonly<Record<string, string | undefined>>): Promise<boolean> {
	if (command.trim() === "") return false;
	if (isAbsolute(command)) return Bun.file(command).exists();
	if (command.includes("/")) return false;
	return findExecutable(command, env) !== null;
}

/** The command line a shell hook runs: `discern worktree ensure`, the program quoted when it needs it. */
export function commandLine(server: ServerCommand, words: readonly string[]): string {
	return [server.command, ...server.args.slice(0, -1), ...words].map(shellWord).join(" ");
}

function shellWord(word: string): string {
	return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
