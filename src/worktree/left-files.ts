import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import type { NestedRepository } from "./nested-repos.ts";
import { personFiles } from "./person-files.ts";
import type { TaskRecord } from "./task.ts";
import { PINNED_STATUS } from "./tree-work.ts";

/**
 * What removing a worktree's folder loses beyond its commits: the files git
 * does not track there. What of them is a person's (a nested repository
 * holding something only it has, an env file edited since `start` copied
 * it) is judged by person-files.ts, as `worktree drop` and `worktree prune`
 * judge it; either keeps the worktree. Everything else ignored
 * (`node_modules/`, `dist/`, caches, a `*.local` note) goes with the
 * folder, as `git worktree remove` deletes it: named and counted, never
 * silently. Untracked files that are not ignored stop `git worktree remove`
 * itself.
 */
export interface LeftFiles {
	/** Ignored files and folders (a wholly ignored folder once, with a trailing `/`), up to {@link LISTED}. */
	ignored: string[];
	ignored_count: number;
	/** Untracked files and folders git does not ignore, up to {@link LISTED}. */
	untracked: string[];
	untracked_count: number;
	/** Env files `start` copied that were edited since, with no copy of the edit in the main checkout. */
	edited_env: string[];
	/** Git repositories inside it that hold something only they have (commits, uncommitted work). */
	nested_repositories: NestedRepository[];
}

/** How many names a list carries: a worktree can hold thousands of ignored folders (one `__pycache__/` per package). */
export const LISTED = 100;

export function noLeftFiles(): LeftFiles {
	return { ignored: [], ignored_count: 0, untracked: [], untracked_count: 0, edited_env: [], nested_repositories: [] };
}

/** Does something of the person's keep the worktree? */
export function keptFor(files: LeftFiles | null): boolean {
	return files !== null && (files.edited_env.length > 0 || files.nested_repositories.length > 0);
}

/** The files a worktree's removal would lose (`adminDir`: its git dir, whose submodule repositories go with it); null when git could not list them. */
export async function leftFiles(worktree: string, adminDir: string | null, mainRoot: string, task: TaskRecord | null): Promise<LeftFiles | null> {
	// An untracked repository holding nothing of its own is untracked files: `git worktree remove` stops on them, named below.
	// The ignored ones at the worktree's own level are the nested-repository scan's (the same listing, made once).
	const [untracked, person] = await Promise.all([
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--exclude-standard", "--directory"], worktree),
		personFiles(worktree, adminDir, mainRoot, task, false),
	]);
	if (untracked.exitCode !== 0 || !person) return null;
	const ignoredNames = [...person.scan.ignoredHere].sort();
	const untrackedNames = nulSeparated(untracked.stdout).sort();
	return {
		ignored: ignoredNames.slice(0, LISTED),
		ignored_count: ignoredNames.length,
		untracked: untrackedNames.slice(0, LISTED),
		untracked_count: untrackedNames.length,
		edited_env: person.edited_env,
		nested_repositories: person.repositories,
	};
}
