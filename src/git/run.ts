import { type Captured, type CaptureOptions, capture, startPiped } from "../platform/process.ts";
import { programOutsideWorkTrees } from "../platform/trusted-program.ts";
import { firstNonBlankLine } from "../text/first-line.ts";
import { mayStartPrograms, personSettings } from "./person-config.ts";

/**
 * Every git call goes through here: argument arrays only, a stable
 * environment (no pager, no prompts, C locale for parseable messages), and
 * the repository's real objects: replace refs and grafts can show another
 * commit's tree or parents under a commit's name, and a Proof must describe
 * the commit that `accept` would land.
 */
export interface GitOptions {
	signal?: AbortSignal;
	env?: Readonly<Record<string, string | undefined>>;
	optionalLocks?: boolean;
	input?: string;
	/** In a process group of its own: a terminal's Ctrl-C does not stop it halfway (platform/process.ts). */
	ownGroup?: boolean;
	/** With ownGroup: told git's pid once it started. */
	onStart?: (pid: number) => void;
}

export function git(args: readonly string[], cwd: string, options: GitOptions = {}): Promise<Captured> {
	return heard(
		args,
		cwd,
		withPersonSettings(args, cwd, options, (spawn) => capture(gitArgv(args, false), spawn)),
	);
}

/**
 * Start `run` with the spawn options of `cwd` and `options`, plus, for a
 * command that may start a program its configuration names, the settings
 * that keep the repository's own such programs from starting
 * (git/person-config.ts). When the configuration cannot be read, git's
 * failure is the answer and nothing runs.
 */
export async function withPersonSettings<T>(
	args: readonly string[],
	cwd: string,
	options: GitOptions,
	run: (spawn: CaptureOptions) => Promise<T>,
): Promise<T | Captured> {
	const spawn = spawnOptions(cwd, options);
	if (!mayStartPrograms(args)) return run(spawn);
	const settings = await personSettings((read) => gitArgv(read, false), cwd, spawn);
	if (!("env" in settings)) return settings;
	return run({ ...spawn, env: { ...spawn.env, ...settings.env } });
}

/** git kept running to answer requests on its stdin (`cat-file --batch`); null when it could not start. */
export function gitPiped(args: readonly string[], cwd: string, options: Omit<GitOptions, "input"> = {}): ReturnType<typeof startPiped> {
	return startPiped(gitArgv(args, false), spawnOptions(cwd, options));
}

/**
 * git's command line; `hooks`: the repository's hooks may run. Only
 * git/hooked.ts asks for them, as it runs such git like a job: a hook is the
 * checkout's code, and may leave processes behind.
 */
export function gitArgv(args: readonly string[], hooks: boolean): string[] {
	return [gitProgram(), ...QUIET, ...(hooks ? [] : NO_HOOKS), ...args];
}

/** Where and with what environment every git call runs. */
export function spawnOptions(cwd: string, options: GitOptions): CaptureOptions {
	return {
		cwd,
		// Optional locks stay off unless asked for: a read must not rewrite the user's index behind their back.
		env: {
			...(options.env ?? process.env),
			GIT_TERMINAL_PROMPT: "0",
			GIT_PAGER: "cat",
			// No editor, whatever `core.editor` or `sequence.editor` the repository names: `:` is git's "do not start one".
			GIT_EDITOR: ":",
			GIT_SEQUENCE_EDITOR: ":",
			LC_ALL: "C",
			GIT_OPTIONAL_LOCKS: options.optionalLocks ? "1" : "0",
			GIT_NO_LAZY_FETCH: "1",
			...RECORDED_HISTORY.env,
		},
		...(options.signal ? { signal: options.signal } : {}),
		...(options.input !== undefined ? { input: options.input } : {}),
		...(options.ownGroup ? { ownGroup: true } : {}),
		...(options.onStart ? { onStart: options.onStart } : {}),
	};
}

/** Tell the listener (--verbose) of a call once it ends. */
export function heard<T extends { exitCode: number }>(args: readonly string[], cwd: string, call: Promise<T>): Promise<T> {
	const listener = watcher;
	if (!listener) return call;
	const started = performance.now();
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

/**
 * History as the commits record it: no replace refs, no grafts, no commit-graph (why: see QUIET). Every git
 * discern runs has it, and so has every job's (jobs/job-env.ts), whose git a lint of "what the branch changed"
 * runs. With grafts off, git hints on every object read that graft files are deprecated: that noise would bury
 * the real error (and fill a job's output).
 */
export const RECORDED_HISTORY = {
	env: { GIT_NO_REPLACE_OBJECTS: "1", GIT_GRAFT_FILE: "/dev/null" },
	settings: [
		["core.useReplaceRefs", "false"],
		["core.commitGraph", "false"],
		["advice.graftFileDeprecated", "false"],
	],
} as const;

/**
 * Settings every call runs with (a `-c` beats the repository's own
 * configuration, which a job can write). Two kinds:
 *
 * - Programs git would start while it reads: an fsmonitor hook, a
 *   transport fetching missing objects (lazy fetch, `core.sshCommand`; every
 *   protocol, as `protocol.<name>.allow` beats `protocol.allow`), gpg to show
 *   or verify signatures, the repository's hooks. Code of the checkout's, run
 *   between two of discern's reads, could change what the next read sees;
 *   none of it runs unless a call asks for hooks.
 * - Other objects shown under a commit's name: replace refs (the
 *   environment's GIT_NO_REPLACE_OBJECTS loses to `core.useReplaceRefs` in
 *   the config) and the commit-graph, a cache of parents git trusts without
 *   checking (a forged one makes a branch "contain" a trunk it does not):
 *   RECORDED_HISTORY.
 */
const QUIET = [
	"core.fsmonitor=false",
	"protocol.allow=never",
	...["file", "git", "ssh", "http", "https", "ext"].map((name) => `protocol.${name}.allow=never`),
	"log.showSignature=false",
	"merge.verifySignatures=false",
	...RECORDED_HISTORY.settings.map(([key, value]) => `${key}=${value}`),
].flatMap((setting) => ["-c", setting]);
const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

let program: string | undefined;

/** git's absolute path, looked up once, never one a checkout could have put on PATH (platform/trusted-program.ts). */
function gitProgram(): string {
	program ??= programOutsideWorkTrees("git") ?? "git";
	return program;
}

/** git's first complaint on stderr as a clause (" (could not open directory …)"), or nothing. */
export function complaint(stderr: string): string {
	const first = firstNonBlankLine(stderr);
	return first ? ` (${first.replace(/^(warning|error|fatal): /, "")})` : "";
}

/** Run git and return trimmed stdout, or null when it exits non-zero. */
export async function gitLine(args: readonly string[], cwd: string): Promise<string | null> {
	const result = await git(args, cwd);
	return result.exitCode === 0 ? result.stdout.trim() : null;
}
