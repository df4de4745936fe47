import { type Captured, capture } from "../platform/process.ts";

/**
 * Every git call goes through here: argument arrays only, a stable
 * environment (no pager, no prompts, C locale for parseable messages).
 */
export function git(
	args: readonly string[],
	cwd: string,
	options: { signal?: AbortSignal; env?: Readonly<Record<string, string | undefined>>; optionalLocks?: boolean } = {},
): Promise<Captured> {
	return capture(["git", ...args], {
		cwd,
		// Optional locks stay off unless asked for: a read must not rewrite the user's index behind their back.
		env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C", GIT_OPTIONAL_LOCKS: options.optionalLocks ? "1" : "0" },
		...(options.signal ? { signal: options.signal } : {}),
	});
}

/** Run git and return trimmed stdout, or null when it exits non-zero. */
export async function gitLine(args: readonly string[], cwd: string): Promise<string | null> {
	const result = await git(args, cwd);
	return result.exitCode === 0 ? result.stdout.trim() : null;
}
