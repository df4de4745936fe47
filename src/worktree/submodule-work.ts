import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { gitDirsAt } from "../git/discover.ts";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import { mapBounded } from "../platform/bounded.ts";
import { foreignJudgement } from "./foreign-work.ts";

/**
 * Which submodules of the checkout at `root` (the gitlinks at `paths`)
 * hold work `done` would name: uncommitted changes or untracked files in
 * it, or in a submodule of its own at any depth (one whose HEAD moved from
 * the commit recorded there counts too), or files in the folder of one that
 * is not checked out. A submodule's HEAD against the gitlink is git's
 * status's to tell (`--ignore-submodules=dirty` reads it without entering).
 *
 * Never through git's own look into a submodule (`status` with
 * `--ignore-submodules=none` runs `git status` inside each, with that
 * repository's configuration: `sub/.git/config`, `.git/modules/<name>/config`
 * and its info/attributes, which anything in a worktree can write, and whose
 * filter commands would then run as the person): each is read through a git
 * dir of discern's own (foreign-work.ts). Null when git could not answer.
 */
export async function submodulesWithWork(root: string, gitlinks: readonly Gitlink[]): Promise<string[] | null> {
	const judged = await mapBounded(gitlinks, READERS, async (link) => {
		const work = await holdsWork(join(root, link.path), link.commit);
		return work === null ? null : work ? [link.path] : [];
	});
	return judged.some((found) => found === null) ? null : judged.flatMap((found) => found ?? []);
}

/** A submodule of a checkout: its path and the commit the checkout's index records for it. */
export interface Gitlink {
	path: string;
	commit: string;
}

/** {@link submodulesWithWork} for every gitlink of the checkout's index. */
export async function checkoutSubmodulesWithWork(root: string): Promise<string[] | null> {
	// ls-files reads the index only: nothing is converted, no program starts.
	const listed = await git(["ls-files", "-s", "-z"], root);
	if (listed.exitCode !== 0) return null;
	const gitlinks = new Map<string, string>();
	for (const record of nulSeparated(listed.stdout)) {
		const tab = record.indexOf("\t");
		const [mode, commit] = record.slice(0, Math.max(tab, 0)).split(" ");
		if (tab >= 0 && mode === "160000" && commit) gitlinks.set(record.slice(tab + 1), commit);
	}
	return gitlinks.size === 0
		? []
		: submodulesWithWork(
				root,
				[...gitlinks].map(([path, commit]) => ({ path, commit })),
			);
}

/** Submodules read at once. */
const READERS = 4;

async function holdsWork(folder: string, recorded: string): Promise<boolean | null> {
	const place = await lstat(folder).catch(() => null);
	// Absent: not checked out (or deleted, which git's status names itself).
	if (!place) return false;
	if (!place.isDirectory()) return true;
	if (!(await lstat(join(folder, ".git")).catch(() => null))) {
		// Not checked out: files in its folder are ones git never shows, and the jobs see.
		const inside = await readdir(folder).catch(() => null);
		return inside === null || inside.length > 0;
	}
	// Its git dir as git follows `.git`, in-process; the work tree is named to git (foreign-work.ts), so no core.worktree of its
	// config moves it. A `.git` that leads to no git dir is never judged clean.
	const found = await gitDirsAt(folder);
	if (!found) return true;
	const judged = await foreignJudgement({ toplevel: folder, gitDir: found.gitDir, commonDir: found.commonDir }, recorded);
	if (judged === null) return null;
	if (judged.changes > 0) return true;
	if (judged.gitlinks.length === 0) return false;
	const inner = await submodulesWithWork(folder, judged.gitlinks);
	return inner === null ? null : inner.length > 0;
}
