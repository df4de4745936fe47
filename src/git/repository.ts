import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { firstNonBlankLine } from "../text/first-line.ts";
import { quoteName } from "../text/terminal.ts";
import { discoverRepository } from "./discover.ts";
import { answerLines, unprintablePath } from "./printable-path.ts";
import { git } from "./run.ts";
import { hiddenEntries, parsePorcelainV2, type WorkingState } from "./status.ts";

/** Where a git command found itself. */
export interface RepositoryLocation {
	root: string;
	gitDir: string;
	commonDir: string;
	/** The main checkout owns the common dir; a linked worktree has its own git dir. */
	location: "main" | "worktree";
}

/** `unprintable`: git found a repository, but one of its folders has a path git cannot print safely (printable-path.ts). */
export type LocateOutcome = { found: true; repository: RepositoryLocation } | { found: false; reason: string; unprintable?: true };

export async function locateRepository(cwd: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<LocateOutcome> {
	const place = await stat(cwd).catch(() => null);
	if (!place) return { found: false, reason: `${cwd} does not exist` };
	if (!place.isDirectory()) return { found: false, reason: `${cwd} is not a directory` };
	const discovered = await discoverRepository(cwd, env);
	if (discovered) return printable({ ...discovered, location: discovered.gitDir === discovered.commonDir ? "main" : "worktree" });
	const result = await git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"], cwd);
	if (result.exitCode !== 0) {
		const reason = firstNonBlankLine(result.stderr) ?? `git rev-parse exited ${result.exitCode}`;
		return { found: false, reason };
	}
	// Three folders, one a line: any other count means a path holds a line break, and no split of the lines can be trusted.
	const lines = answerLines(result.stdout);
	const [root, gitDir, commonDir] = lines;
	if (lines.length > 3) {
		const reason = `the path of its work tree, git dir or common dir holds a line break (git printed ${lines.length} lines for 3 folders), and git prints paths as they are, one a line: rename or move it`;
		return { found: false, reason, unprintable: true };
	}
	if (!root || !gitDir || !commonDir) return { found: false, reason: "not inside a work tree" };
	return printable({ root, gitDir, commonDir, location: resolve(gitDir) === resolve(commonDir) ? "main" : "worktree" });
}

/** The repository, unless one of its folders has a path git's answers cannot name exactly (a later rev-parse would misread it). */
function printable(repository: RepositoryLocation): LocateOutcome {
	for (const [what, path] of [
		["its work tree", repository.root],
		["its git dir", repository.gitDir],
		["its common git dir", repository.commonDir],
	] as const) {
		const problem = unprintablePath(path);
		if (problem) return { found: false, reason: `${what} ${quoteName(path)}: ${problem}`, unprintable: true };
	}
	return { found: true, repository };
}

/**
 * Branch, HEAD and changed paths in one git call. Null means git could not
 * answer: callers must treat that as "unknown", never as "clean".
 */
export async function readWorkingState(root: string): Promise<WorkingState | null> {
	// `dirty`: a submodule's HEAD is read without entering it; git's status inside one would run that repository's own filters.
	const result = await git(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal", "--ignore-submodules=dirty"], root);
	return result.exitCode === 0 ? parsePorcelainV2(result.stdout) : null;
}

/**
 * HEAD and its branch, without reading the working tree: a status would run
 * whatever filters the repository's attributes and config name on changed
 * files. Null when git could not tell what HEAD is.
 */
export async function readHead(root: string): Promise<{ head: string | null; branch: string | null } | null> {
	const [commit, symbolic] = await Promise.all([
		git(["rev-parse", "--quiet", "--verify", "HEAD^{commit}"], root),
		git(["symbolic-ref", "--quiet", "HEAD"], root),
	]);
	// rev-parse --quiet exits 1 for an unborn branch; symbolic-ref exits 1 for a detached HEAD. Anything else is git failing.
	if ((commit.exitCode !== 0 && commit.exitCode !== 1) || (symbolic.exitCode !== 0 && symbolic.exitCode !== 1)) return null;
	const ref = symbolic.exitCode === 0 ? symbolic.stdout.trim() : "";
	return { head: commit.exitCode === 0 ? commit.stdout.trim() : null, branch: ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null };
}

/**
 * The checkout's own status (untracked files one by one), behind the
 * evidence interface: for runs that never earn a Proof — what `prepare` and
 * `test` edited, `done --standalone`.
 */
export function plainStatus(root: string): { status: () => Promise<WorkingState | null>; close: () => Promise<void> } {
	return {
		status: async () => {
			const result = await git(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"], root);
			return result.exitCode === 0 ? parsePorcelainV2(result.stdout) : null;
		},
		close: async () => undefined,
	};
}

/** Commits on HEAD not on `base`, and on `base` not on HEAD. */
export async function aheadBehind(root: string, base: string): Promise<{ ahead: number; behind: number } | null> {
	const result = await git(["rev-list", "--left-right", "--count", `${base}...HEAD`], root);
	if (result.exitCode !== 0) return null;
	const [behind, ahead] = result.stdout.trim().split(/\s+/).map(Number);
	if (behind === undefined || ahead === undefined || Number.isNaN(behind) || Number.isNaN(ahead)) return null;
	return { ahead, behind };
}

/**
 * Tracked files git is told not to look at (assume-unchanged, skip-worktree),
 * submodules included: `git status` stays silent about them even when their
 * content differs from the commit, so a clean status alone cannot vouch for
 * the tree. Null when git could not answer.
 */
export async function filesHiddenFromStatus(root: string): Promise<string[] | null> {
	const result = await git(["ls-files", "-v", "-z", "--recurse-submodules"], root);
	return result.exitCode === 0 ? hiddenEntries(result.stdout) : null;
}

/** Why git cannot work here, in its own words (dubious ownership, a broken index…), for a message. */
export async function gitProblem(root: string): Promise<string> {
	const result = await git(["status", "--porcelain", "--ignore-submodules=dirty"], root);
	return firstNonBlankLine(result.stderr) ?? `git status exited ${result.exitCode}`;
}
