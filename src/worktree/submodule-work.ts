import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { nulSeparated } from "../git/nul-list.ts";
import { answerLines } from "../git/printable-path.ts";
import { git } from "../git/run.ts";
import { mapBounded } from "../platform/bounded.ts";
import { realPathOf } from "../platform/files.ts";
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
export async function submodulesWithWork(root: string, paths: readonly string[]): Promise<string[] | null> {
	const judged = await mapBounded(paths, READERS, async (path) => {
		const work = await holdsWork(join(root, path));
		return work === null ? null : work ? [path] : [];
	});
	return judged.some((found) => found === null) ? null : judged.flatMap((found) => found ?? []);
}

/** {@link submodulesWithWork} for every gitlink of the checkout's index. */
export async function checkoutSubmodulesWithWork(root: string): Promise<string[] | null> {
	// ls-files reads the index only: nothing is converted, no program starts.
	const listed = await git(["ls-files", "-s", "-z"], root);
	if (listed.exitCode !== 0) return null;
	const gitlinks = new Set<string>();
	for (const record of nulSeparated(listed.stdout)) {
		const tab = record.indexOf("\t");
		if (tab >= 0 && record.startsWith("160000 ")) gitlinks.add(record.slice(tab + 1));
	}
	return gitlinks.size === 0 ? [] : submodulesWithWork(root, [...gitlinks]);
}

/** Submodules read at once. */
const READERS = 4;

async function holdsWork(folder: string): Promise<boolean | null> {
	const place = await lstat(folder).catch(() => null);
	// Absent: not checked out (or deleted, which git's status names itself).
	if (!place) return false;
	if (!place.isDirectory()) return true;
	if (!(await lstat(join(folder, ".git")).catch(() => null))) {
		// Not checked out: files in its folder are ones git never shows, and the jobs see.
		const inside = await readdir(folder).catch(() => null);
		return inside === null || inside.length > 0;
	}
	const top = await git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"], folder);
	const lines = answerLines(top.stdout);
	const [toplevel, gitDir, commonDir] = lines;
	// A `.git` git will not read here, or one whose work tree is elsewhere, is never judged clean.
	if (top.exitCode !== 0 || lines.length !== 3 || !toplevel || !gitDir || !commonDir) return true;
	if ((await realPathOf(toplevel)) !== (await realPathOf(folder))) return true;
	const judged = await foreignJudgement({ toplevel, gitDir, commonDir });
	if (judged === null) return null;
	if (judged.changes > 0) return true;
	if (judged.gitlinks.length === 0) return false;
	const inner = await submodulesWithWork(folder, judged.gitlinks);
	return inner === null ? null : inner.length > 0;
}
