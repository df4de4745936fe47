import { type Captured, capture } from "../platform/process.ts";

/**
 * Every git call goes through here: argument arrays only, a stable
 * environment (no pager, no prompts, C locale for parseable messages), and
 * the repository's real objects: replace refs and grafts can show another
 * commit's tree or parents under a commit's name, and a Proof must describe
 * the commit that `accept` would land.
 */
export function git(
	args: readonly string[],
	cwd: string,
	options: { signal?: AbortSignal; env?: Readonly<Record<string, string | undefined>>; optionalLocks?: boolean; input?: string } = {},
): Promise<Captured> {
	const listener = watcher;
	const started = listener ? performance.now() : 0;
	// With grafts off, git hints on every object read that graft files are deprecated: that noise would bury the real error.
	const call = capture(["git", "-c", "advice.graftFileDeprecated=false", ...args], {
		cwd,
		// Optional locks stay off unless asked for: a read must not rewrite the user's index behind their back.
		env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C", GIT_OPTIONAL_LOCKS: options.optionalLocks ? "1" : "0", ...REAL_OBJECTS },
		...(options.signal ? { signal: options.signal } : {}),
		...(options.input !== undefined ? { input: options.input } : {}),
	});
	if (!listener) return call;
	return call.then((result) => {
		listener({ args, cwd, exitCode: result.exitCode, ms: performance.now() - started });
		return result;
	});
}

/** One git call, as the CLI's --verbose narration tells it. */
export interface GitCall {
	args: readonly string[];
	cwd: string;
	exitCode: number;
	ms: number;
}

/**
 * Who hears of every git call once it ends: the CLI installs a listener for
 * --verbose and removes it after the run. A module-level hook, not a context
 * field, because git is called from deep helpers that no context reaches;
 * with nobody listening a call pays one comparison.
 */
let watcher: ((call: GitCall) => void) | undefined;

export function watchGit(listener: ((call: GitCall) => void) | undefined): void {
	watcher = listener;
}

const REAL_OBJECTS = { GIT_NO_REPLACE_OBJECTS: "1", GIT_GRAFT_FILE: "/dev/null" } as const;

/** Run git and return trimmed stdout, or null when it exits non-zero. */
export async function gitLine(args: readonly string[], cwd: string): Promise<string | null> {
	const result = await git(args, cwd);
	return result.exitCode === 0 ? result.stdout.trim() : null;
}
