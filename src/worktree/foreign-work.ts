import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readIndexEntries } from "../git/index-entries.ts";
import { git } from "../git/run.ts";
import { hiddenEntries, isHiddenTag, JUDGED_SETTINGS, parsePorcelainV2 } from "../git/status.ts";

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
	const read = await readForeign(repository, false);
	return read === null ? null : read.changes;
}

/** What {@link foreignJudgement} reads of a submodule. */
export interface ForeignJudgement {
	/** Uncommitted changes, untracked files (under the committed `.gitignore` rules only), hidden tracked files, and its own submodules whose HEAD is not the commit it records. */
	changes: number;
	/** Its own submodules (gitlinks of its index, with the commit each records): their insides are judged on their own. */
	gitlinks: { path: string; commit: string }[];
}

/**
 * A submodule judged as `done` judges it, read as {@link foreignWork}
 * reads (without its configuration, hooks or info/attributes): untracked
 * files count unless a `.gitignore` ignores them (never its info/exclude
 * or a global excludes file), and a submodule of its own whose HEAD moved
 * from the recorded commit is a change (git reads that HEAD itself, without
 * running anything there). Null when git could not answer.
 */
export async function foreignJudgement(repository: ForeignRepository, recorded: string): Promise<ForeignJudgement | null> {
	// The commit the superproject records stands for HEAD: a HEAD elsewhere is a change git's status there names already, and
	// no git need be asked for it (each process is a wait, on status's budget).
	return readForeign(repository, true, { head: recorded, sha256: recorded.length === 64 });
}

async function readForeign(repository: ForeignRepository, judged: boolean, known?: { head: string; sha256: boolean }): Promise<ForeignJudgement | null> {
	const [head, format] = known
		? [
				{ exitCode: 0, stdout: known.head },
				{ exitCode: 0, stdout: known.sha256 ? "sha256" : "sha1" },
			]
		: await Promise.all([
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
		// Judged as done judges: only committed rules hide an untracked file.
		if (!judged) await copyFile(join(repository.commonDir, "info", "exclude"), join(folder, "info", "exclude")).catch(() => undefined);
		// Nothing of git's own environment discern was started with (GIT_CONFIG_PARAMETERS, GIT_OBJECT_DIRECTORY, …) is passed on.
		const env = {
			...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_"))),
			GIT_DIR: folder,
			GIT_COMMON_DIR: folder,
			GIT_WORK_TREE: repository.toplevel,
			GIT_INDEX_FILE: join(repository.gitDir, "index"),
			GIT_OBJECT_DIRECTORY: join(repository.commonDir, "objects"),
		};
		// `dirty`: a submodule of its own counts when its HEAD moved, read in-process; its work tree is never entered (git would run
		// a status there, with that repository's own configuration).
		// A plain index is read in-process (index-entries.ts): its entries' flags and gitlinks, one process fewer.
		const plain = judged ? readIndexEntries(repository.gitDir) : null;
		const [status, flagged] = await Promise.all([
			git(
				[
					...JUDGED_SETTINGS,
					...(judged ? ["-c", "core.excludesFile=/dev/null"] : []),
					"status",
					"--porcelain=v2",
					"-z",
					"--untracked-files=normal",
					judged ? "--ignore-submodules=dirty" : "--ignore-submodules=all",
				],
				repository.toplevel,
				{ env },
			),
			// With -s: each entry's tag, mode, object and path (`H 160000 <commit> 0\tpath`), its gitlinks among them.
			plain ? null : git(["ls-files", "-v", "-z", ...(judged ? ["-s"] : [])], repository.toplevel, { env }),
		]);
		if (status.exitCode !== 0 || (flagged && flagged.exitCode !== 0)) return null;
		const changes = parsePorcelainV2(status.stdout).changes.length;
		if (plain)
			return {
				changes: changes + plain.filter((entry) => entry.hidden).length,
				gitlinks: plain.filter((entry) => entry.mode === "160000").map((entry) => ({ path: entry.path, commit: entry.blob })),
			};
		const listed = flagged?.stdout ?? "";
		return judged
			? { changes: changes + hiddenOfStaged(listed), gitlinks: gitlinksOf(listed) }
			: { changes: changes + hiddenEntries(listed).length, gitlinks: [] };
	} finally {
		await rm(folder, { recursive: true, force: true }).catch(() => undefined);
	}
}

/** The gitlinks of `ls-files -v -s -z` output (`H 160000 <commit> <stage>\t<path>`): path and recorded commit. */
function gitlinksOf(output: string): { path: string; commit: string }[] {
	const links = new Map<string, string>();
	for (const record of output.split("\0")) {
		const tab = record.indexOf("\t");
		const [, mode, commit] = record.slice(0, Math.max(tab, 0)).split(" ");
		if (tab >= 0 && mode === "160000" && commit) links.set(record.slice(tab + 1), commit);
	}
	return [...links].map(([path, commit]) => ({ path, commit }));
}

/** How many entries of `ls-files -v -s -z` output status looks away from (assume-unchanged, skip-worktree). */
function hiddenOfStaged(output: string): number {
	return output.split("\0").filter((record) => record[1] === " " && isHiddenTag(record[0] ?? "")).length;
}
