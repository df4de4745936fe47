import { type Captured, capture } from "../platform/process.ts";

/**
 * Every git call goes through here: argument arrays only, a stable
 * environment (no pager, no prompts, C locale for parseable messages).
 */
export function git(
	args: readonly string[],
	cwd: string,
	options: { signal?: AbortSignal; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<Captured> {
	return capture(["git", ...args], {
		cwd,
		env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0" },
		...(options.signal ? { signal: options.signal } : {}),
	});
}

/** Run git and return trimmed stdout, or null when it exits non-zero. */
export async function gitLine(args: readonly string[], cwd: string): Promise<string | null> {
	const result = await git(args, cwd);
	return result.exitCode === 0 ? result.stdout.trim() : null;
}
