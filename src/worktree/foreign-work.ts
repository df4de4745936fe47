import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "../git/run.ts";
import { hiddenEntries, parsePorcelainV2 } from "../git/status.ts";
import { PINNED_STATUS } from "./tree-work.ts";

/** A repository found inside a checkout, as git's plumbing names it (absolute paths). */
export interface ForeignRepository {
	toplevel: string;
	gitDir: string;
	commonDir: string;
}

/**
 * How many uncommitted changes and untracked files a repository found
 * inside a checkout holds (plus the tracked files git is told not to look
 * at, counted as work: they cannot be compared safely here), read without
 * its own configuration. Anything in a worktree can have written that
 * repository's `.git/config`, and `git status` runs the filter drivers it
 * names (a `clean` command, for any file whose stat changed): as the
 * person running drop or prune, outside any sandbox the agent had. So git
 * reads it through a git dir of discern's own — its HEAD, its index and
 * its objects, the system and the person's global configuration, but not
 * its config, hooks or info/attributes (info/exclude is copied). Its
 * submodules are not entered here; they are judged on their own.
 * Null when git could not answer.
 */
export async function foreignWork(repository: ForeignRepository): Promise<number | null> {
	const [head, format] = await Promise.all([
		git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repository.toplevel),
		git(["rev-parse", "--show-object-format"], repository.toplevel),
	]);
	if (format.exitCode !== 0) return null;
	const sha256 = format.stdout.trim() === "sha256";
	const folder = await mkdtemp(join(tmpdir(), "discern-foreign-"));
	try {
		await Promise.all([
			mkdir(join(folder, "refs")),
			mkdir(join(folder, "info")),
			// Unborn: a branch that does not exist, so everything in the index counts as staged.
			writeFile(join(folder, "HEAD"), head.exitCode === 0 && head.stdout.trim() ? `${head.stdout.trim()}\n` : "ref: refs/heads/discern-unborn\n"),
			writeFile(
				join(folder, "config"),
				sha256 ? "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n" : "[core]\n\trepositoryformatversion = 0\n",
			),
		]);
		await copyFile(join(repository.commonDir, "info", "exclude"), join(folder, "info", "exclude")).catch(() => undefined);
		// Nothing of git's own environment discern was started with (GIT_CONFIG_PARAMETERS, GIT_OBJECT_DIRECTORY, …) is passed on.
		const env = {
			...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_"))),
			GIT_DIR: folder,
			GIT_COMMON_DIR: folder,
			GIT_WORK_TREE: repository.toplevel,
			GIT_INDEX_FILE: join(repository.gitDir, "index"),
			GIT_OBJECT_DIRECTORY: join(repository.commonDir, "objects"),
		};
		const [status, flagged] = await Promise.all([
			git([...PINNED_STATUS, "status", "--porcelain=v2", "-z", "--untracked-files=normal", "--ignore-submodules=all"], repository.toplevel, { env }),
			git(["ls-files", "-v", "-z"], repository.toplevel, { env }),
		]);
		if (status.exitCode !== 0 || flagged.exitCode !== 0) return null;
		return parsePorcelainV2(status.stdout).changes.length + hiddenEntries(flagged.stdout).length;
	} finally {
		await rm(folder, { recursive: true, force: true }).catch(() => undefined);
	}
}
