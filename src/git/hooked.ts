import { access, constants } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { type Contained, type ContainedOptions, runContained } from "../platform/contained.ts";
import { capture } from "../platform/process.ts";
import { quoteName } from "../text/terminal.ts";
import { type GitOptions, gitArgv, heard, spawnOptions, withPersonSettings } from "./run.ts";

/**
 * git that runs the repository's hooks: a new worktree's checkout, a merge,
 * a commit, as a person's own git would. A hook is the checkout's code and
 * may start anything: a background child that holds git's output open
 * (which kept a plain captured call waiting for 25 s), a `setsid` daemon
 * that outlives discern, or a loop that never ends. So such git runs like a
 * gate job (platform/contained.ts): its own process group, its output in
 * files, a time limit, and whatever it leaves running killed once it exits.
 */
export interface HookedGitOptions extends Pick<GitOptions, "signal" | "env">, Pick<ContainedOptions, "graceMs" | "subreaper" | "finishOnSignalMs"> {
	/**
	 * Seconds git and its hooks may take; 0: no limit. The verbs pass
	 * `[gate].timeout` (600 s unless set): the bound a project already gives
	 * its own commands, and a hook is one (a post-checkout `npm ci` may
	 * legitimately take minutes, a hung one must not hold the verb forever).
	 */
	timeoutS: number;
	/** The hooks this call may run, named when it times out. */
	hooks: readonly HookName[];
}

export interface HookedGit extends Contained {
	/** Set when the time limit ran out: what ran too long, as a sentence for a verb's message. */
	stalled?: string;
}

/** The hooks git runs around a checkout, a merge or a commit (githooks(5)); every ref update also runs reference-transaction. */
export const HOOKS = {
	checkout: ["post-checkout", "post-index-change", "reference-transaction"],
	merge: ["pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "post-index-change", "reference-transaction"],
	commit: ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change", "reference-transaction"],
} as const;
export type HookName = (typeof HOOKS)[keyof typeof HOOKS][number];

/**
 * A commit or merge ends by starting `git maintenance run --auto` (`gc --auto` before git 2.29), which may detach
 * into a daemon of its own: the sweep would kill it half-way. The person's own next git call runs it instead.
 */
const NO_AUTO_MAINTENANCE = ["-c", "maintenance.auto=false", "-c", "gc.auto=0"];

export async function gitWithHooks(args: readonly string[], cwd: string, options: HookedGitOptions): Promise<HookedGit> {
	// The hooks run, as the verb means them to; a filter, merge driver or signing program only the repository's config names does not.
	const ran = await heard(
		args,
		cwd,
		withPersonSettings(args, cwd, options, (spawn) =>
			runContained(gitArgv([...NO_AUTO_MAINTENANCE, ...args], true), {
				cwd,
				env: spawn.env ?? process.env,
				timeoutS: options.timeoutS,
				...(options.signal ? { signal: options.signal } : {}),
				...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
				...(options.finishOnSignalMs !== undefined ? { finishOnSignalMs: options.finishOnSignalMs } : {}),
				...(options.subreaper !== undefined ? { subreaper: options.subreaper } : {}),
			}),
		).then((done): Contained => ("timedOut" in done ? done : { ...done, timedOut: false, interrupted: false })),
	);
	if (!ran.timedOut) return ran;
	const folder = await hooksFolder(cwd);
	const present = await presentHooks(folder, options.hooks);
	const which =
		present.length === 0
			? "a hook"
			: present.length === 1
				? `the ${present[0]} hook`
				: `one of the hooks ${present.slice(0, -1).join(", ")} or ${present.at(-1)}`;
	const where = present.length > 0 ? ` (in ${quoteName(folder)})` : "";
	return {
		...ran,
		stalled: `\`${commandName(args)}\` did not finish within ${options.timeoutS} s: ${which}${where} was still running. git and everything it started were stopped`,
	};
}

/** The command's own words, past any leading `-c key=value` and before its first option: `git worktree add`, `git merge`. */
function commandName(args: readonly string[]): string {
	let at = 0;
	while (args[at] === "-c") at += 2;
	const words: string[] = [];
	for (const arg of args.slice(at)) {
		if (arg.startsWith("-")) break;
		words.push(arg);
	}
	return ["git", ...words].join(" ");
}

/** Of `names`, the hooks the repository has: executable files in its hooks `folder` (core.hooksPath, else .git/hooks). */
async function presentHooks(folder: string, names: readonly string[]): Promise<string[]> {
	const found = await Promise.all(
		names.map((name) =>
			access(join(folder, name), constants.X_OK).then(
				() => name,
				() => null,
			),
		),
	);
	return found.filter((name): name is string => name !== null);
}

async function hooksFolder(cwd: string): Promise<string> {
	// Asked with the repository's own core.hooksPath, which every other call overrides (rev-parse runs no hook).
	const asked = await capture(gitArgv(["rev-parse", "--git-path", "hooks"], true), spawnOptions(cwd, {}));
	const path = asked.exitCode === 0 ? asked.stdout.replace(/\n$/, "") : ".git/hooks";
	return isAbsolute(path) ? path : join(cwd, path);
}
