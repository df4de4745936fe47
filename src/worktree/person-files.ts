import { join } from "node:path";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import { clip, clipList } from "../text/clip.ts";
import { plural } from "../text/plural.ts";
import { quoteName } from "../text/terminal.ts";
import { fileHash } from "./file-hash.ts";
import { blockingRepositories, describeBlocking, type NestedRepository, type NestedScan, scanNested } from "./nested-repos.ts";
import type { TaskRecord } from "./task.ts";
import { PINNED_STATUS } from "./tree-work.ts";

/**
 * What a person would lose for good with a worktree's folder, judged the
 * same way by every verb that removes one (accept's cleanup, `worktree
 * drop`, `worktree prune`), so that no verb deletes what another keeps:
 *
 * - a git repository inside it holding something only it has (commits no
 *   remote-tracking branch holds, uncommitted work): nested-repos.ts;
 * - an env file `start` copied from the main checkout (`[worktree].env_files`)
 *   whose content is neither what was copied (its hash is in the task
 *   record) nor what the main checkout holds now: the person edited it
 *   there, and no copy of the edit exists anywhere.
 *
 * Either keeps the worktree. Other ignored files (build output, caches) go
 * with the folder, named; telling a note from output by its name would be a
 * guess, and only env files have a recorded original to compare with.
 */
export interface PersonFiles {
	/** Every repository inside it and the ignored files that go with it. */
	scan: NestedScan;
	/** The repositories that keep it (see `blockingRepositories`). */
	repositories: NestedRepository[];
	/** Env files `start` copied that were edited since, with no copy of the edit in the main checkout. */
	edited_env: string[];
}

/**
 * The person's files in the worktree at `worktree` (`null`: its folder is
 * gone, only its git dir `adminDir` is looked at). `untrackedRepositories`:
 * an untracked repository keeps it even when it holds nothing of its own
 * (drop's saved snapshot cannot hold one). Null when git could not list the
 * files: never read as "nothing there".
 */
export async function personFiles(
	worktree: string | null,
	adminDir: string | null,
	mainRoot: string,
	task: TaskRecord | null,
	untrackedRepositories: boolean,
): Promise<PersonFiles | null> {
	const [scan, edited] = await Promise.all([scanNested(worktree, adminDir), worktree ? editedEnvFiles(worktree, mainRoot, task) : []]);
	if (!scan || !edited) return null;
	return { scan, repositories: blockingRepositories(scan, untrackedRepositories), edited_env: edited };
}

/**
 * Why what a person has keeps the worktree, one clause per kind, the same
 * words in every verb: "`.env` was edited there since start copied it, and
 * the main checkout holds no copy of the edit", "it holds 1 git repository
 * of its own that removing it would lose: `scratch` (ignored; 1 commit no
 * remote-tracking branch holds)". Empty when nothing keeps it.
 */
export function keptReasons(found: { repositories: readonly NestedRepository[]; edited_env: readonly string[] }): string[] {
	const env = found.edited_env;
	const repositories = found.repositories;
	return [
		...(env.length > 0
			? [
					`${clip(clipList(env.map(quoteName), 10), 400)} ${env.length === 1 ? "was" : "were"} edited there since start copied ${env.length === 1 ? "it" : "them"}, and the main checkout holds no copy of the edit`,
				]
			: []),
		...(repositories.length > 0
			? [
					`it holds ${plural(repositories.length, "git repository", "git repositories")} of its own that removing it would lose: ${clip(clipList(describeBlocking(repositories), 10), 1000)}`,
				]
			: []),
	];
}

/** The env files `start` copied into the worktree and the person edited since, with no copy of the edit in the main checkout; null when git could not tell. */
export async function editedEnvFiles(worktree: string, mainRoot: string, task: TaskRecord | null): Promise<string[] | null> {
	const copies = task?.env_copies ?? [];
	if (copies.length === 0) return [];
	// A copy committed since is in the commits: nothing of it is lost with the folder.
	const tracked = await git([...PINNED_STATUS, "ls-files", "-z", "--", ...copies.map((copy) => `:(literal)${copy.path}`)], worktree);
	if (tracked.exitCode !== 0) return null;
	const committed = new Set(nulSeparated(tracked.stdout));
	const edited: string[] = [];
	for (const copy of copies) {
		if (committed.has(copy.path)) continue;
		const now = await fileHash(join(worktree, copy.path));
		if (now === null || now === copy.sha256) continue;
		if ((await fileHash(join(mainRoot, copy.path))) === now) continue;
		edited.push(copy.path);
	}
	return edited.sort();
}
