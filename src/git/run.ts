import { delimiter, isAbsolute } from "node:path";
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
	options: {
		signal?: AbortSignal;
		env?: Readonly<Record<string, string | undefined>>;
		optionalLocks?: boolean;
		input?: string;
		/** Run the repository's hooks: a merge or commit a person would make, a new worktree's checkout. */
		hooks?: boolean;
	} = {},
): Promise<Captured> {
	const listener = watcher;
	const started = listener ? performance.now() : 0;
	const settings = [...QUIET, ...(options.hooks ? [] : NO_HOOKS)];
	const call = capture([gitProgram(), ...settings, ...args], {
		cwd,
		// Optional locks stay off unless asked for: a read must not rewrite the user's index behind their back.
		env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C", GIT_OPTIONAL_LOCKS: options.optionalLocks ? "1" : "0", GIT_NO_LAZY_FETCH: "1", ...REAL_OBJECTS },
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

/**
 * Settings every call runs with. A repository's own configuration can name
 * programs git starts while it reads: an fsmonitor hook, a transport that
 * fetches missing objects (lazy fetch, `core.sshCommand`), gpg to show
 * signatures, the repository's hooks. That is code of the checkout's (a job
 * can write `.git/config`), run between two of discern's reads, where it
 * could change what the next read sees; none of it may run unless a call
 * asks for hooks. With grafts off, git hints on every object read that graft
 * files are deprecated: that noise would bury the real error.
 */
const QUIET = ["core.fsmonitor=false", "protocol.allow=never", "log.showSignature=false", "advice.graftFileDeprecated=false"].flatMap((setting) => ["-c", setting]);
const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

let program: string | undefined;

/**
 * git's absolute path, looked up once on PATH's absolute folders only: a
 * relative entry (`.`) would have a checkout's own `./git` run as discern's git.
 */
function gitProgram(): string {
	program ??= Bun.which("git", { PATH: (process.env.PATH ?? "").split(delimiter).filter(isAbsolute).join(delimiter) }) ?? "git";
	return program;
}

/** Run git and return trimmed stdout, or null when it exits non-zero. */
export async function gitLine(args: readonly string[], cwd: string): Promise<string | null> {
	const result = await git(args, cwd);
	return result.exitCode === 0 ? result.stdout.trim() : null;
}
