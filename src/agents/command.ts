import { basename, dirname, isAbsolute } from "node:path";
import { findExecutable } from "../platform/process.ts";
import { shellWord } from "../text/shell-quote.ts";
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
	if (running.script === null)
		return { command: running.execPath, args: ["mcp"], via: "binary", why: `\`discern\` is not on PATH, so the absolute path of the running binary` };
	return {
		command: running.execPath,
		args: [running.script, "mcp"],
		via: "source",
		why: "`discern` is not on PATH and discern runs from source, so bun and the absolute path of its entry",
	};
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

/** A compiled discern binary's name: `discern`, or a release name such as `discern-linux-x64` (build.ts). */
const BINARY_NAME = /^discern(?:-[a-z0-9]+)*(?:\.exe)?$/;
const BUN_NAME = /^bun(?:-debug)?(?:\.exe)?$/;

/**
 * Is this a server command `refresh` could have written (`chooseCommand`):
 * `discern mcp`; an absolute path to a discern binary, then `mcp`; or an
 * absolute bun, the absolute path of discern's `src/main.ts`, then `mcp`.
 * Nothing else is discern's entry — not a shell, not extra arguments —
 * whatever the last word is.
 */
export function isDiscernServer(command: string, args: readonly unknown[]): boolean {
	if (!args.every((arg) => typeof arg === "string")) return false;
	if (args.length === 1 && args[0] === "mcp") return command === "discern" || (isAbsolute(command) && BINARY_NAME.test(basename(command)));
	if (args.length === 2 && args[1] === "mcp") {
		const script = args[0] as string;
		return (
			isAbsolute(command) && BUN_NAME.test(basename(command)) && isAbsolute(script) && basename(script) === "main.ts" && basename(dirname(script)) === "src"
		);
	}
	return false;
}

/** The server a hook command line starts, when it is exactly what refresh writes for `words` (`worktree ensure`); null otherwise. */
export function hookServer(line: string, words: readonly string[]): ServerCommand | null {
	const tokens = splitShellWords(line);
	if (!tokens || tokens.length < words.length + 1) return null;
	const tail = tokens.slice(-words.length);
	if (tail.some((word, index) => word !== words[index])) return null;
	const [command = "", ...rest] = tokens.slice(0, -words.length);
	const server = { command, args: [...rest, "mcp"] };
	return isDiscernServer(server.command, server.args) && commandLine(server, words) === line ? server : null;
}

/** Words as `shellWord` writes them (bare safe words, or single-quoted with `'\\''`), one space apart; null for anything else. */
function splitShellWords(line: string): string[] | null {
	const word = /^(?:([A-Za-z0-9_./:=@%+-]+)|'((?:[^']|'\\'')*)')(?: |$)/;
	const words: string[] = [];
	let rest = line;
	while (rest !== "") {
		const match = word.exec(rest);
		if (!match) return null;
		words.push(match[1] ?? (match[2] ?? "").replaceAll("'\\''", "'"));
		rest = rest.slice(match[0].length);
	}
	return words;
}
