import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { nulSeparated } from "../git/nul-list.ts";
import { answerLines } from "../git/printable-path.ts";
import { git } from "../git/run.ts";
import { isInside, realPathOf } from "../platform/files.ts";
import { plural } from "../text/plural.ts";
import { quoteName } from "../text/terminal.ts";
import { foreignWork } from "./foreign-work.ts";
import { PINNED_STATUS } from "./tree-work.ts";

/**
 * How a git repository sits inside a checkout: not known to it
 * (`untracked`, a clone made there), matched by its ignore rules
 * (`ignored`), or a gitlink in its index (`submodule`, registered in
 * .gitmodules or not). Removing the checkout deletes each with its folder.
 */
export const NESTED_KINDS = ["untracked", "ignored", "submodule"] as const;

export const NestedRepository = v.strictObject({
	path: v.pipe(v.string(), v.description("Relative to the worktree (a gone submodule: its name under modules/).")),
	kind: v.picklist(NESTED_KINDS),
	git_dir: v.string(),
	checked_out: v.boolean(),
	loses: v.pipe(v.array(v.string()), v.description("What deleting it would lose for good.")),
});
export type NestedRepository = v.InferOutput<typeof NestedRepository>;

export interface NestedScan {
	repositories: NestedRepository[];
	/**
	 * Ignored files and folders (a wholly ignored folder once), those inside
	 * nested repositories with their path: deleted with the checkout, never saved.
	 */
	ignored: string[];
	/** The same at the checkout's own level only (what `git ls-files --others --ignored --directory` names there). */
	ignoredHere: string[];
}

/** How deep discern looks into repositories inside repositories; one deeper is judged as losing something (unknown is never "nothing"). */
const MAX_DEPTH = 4;
/** How deep discern looks for submodule repositories under a git dir's modules/ (a submodule's name may hold slashes). */
const MAX_MODULE_DEPTH = 8;

interface Walk {
	/** Folders a removal deletes (the checkout, its git dir), symlinks resolved. */
	doomed: string[];
	/** Git dirs already judged (symlinks resolved): a populated submodule's repository is not judged again under modules/. */
	judged: Set<string>;
	scan: NestedScan;
}

/**
 * Every git repository inside the checkout at `root` (at any depth, inside
 * ignored folders, inside each other, bare ones in ignored folders), and
 * every submodule repository under its git dir `adminDir` (`<admin>/modules/…`,
 * deleted when the worktree is removed, checkout or not), each judged for
 * what deleting it would lose; and the ignored files that go with the
 * folder. `root` null: the folder is gone, only the git dir is looked at.
 * Null when git could not list the checkout's files (never read as "nothing there").
 */
export async function scanNested(root: string | null, adminDir: string | null): Promise<NestedScan | null> {
	const doomed = [...(root ? [await realPathOf(root)] : []), ...(adminDir ? [await realPathOf(adminDir)] : [])];
	const walk: Walk = { doomed, judged: new Set(), scan: { repositories: [], ignored: [], ignoredHere: [] } };
	if (root && !(await scanInto(root, "", 0, walk))) return null;
	if (adminDir) await scanModules(join(adminDir, "modules"), "", 0, walk);
	// A wholly ignored folder is named once: what a repository inside it ignores is in it.
	const folders = walk.scan.ignored.filter((name) => name.endsWith("/"));
	walk.scan.ignored = walk.scan.ignored.filter((name) => !folders.some((folder) => folder !== name && name.startsWith(folder)));
	return walk.scan;
}

/** Nested repositories that stop a removal: any that would lose something, and (`untrackedToo`) every untracked one, which a saved snapshot cannot hold. */
export function blockingRepositories(scan: NestedScan, untrackedToo: boolean): NestedRepository[] {
	return scan.repositories.filter((repository) => repository.loses.length > 0 || (untrackedToo && repository.kind === "untracked"));
}

/** Each repository named with why it stops a removal: `vendor/lib (ignored; 2 commits no remote-tracking branch holds)`. */
export function describeBlocking(blocking: readonly NestedRepository[]): string[] {
	return blocking.map((repository) => {
		const untracked = repository.kind === "untracked" ? ["a saved snapshot cannot hold a repository, only a pointer to its commit"] : [];
		const gone = repository.checked_out ? [] : [`its checkout is gone; its repository is ${quoteName(repository.git_dir)}`];
		const parts = [repository.kind, ...repository.loses, ...untracked, ...gone];
		return `${quoteName(repository.path)} (${parts.join("; ")})`;
	});
}

async function scanInto(dir: string, prefix: string, depth: number, walk: Walk): Promise<boolean> {
	// Without --directory git descends every folder and names a nested repository (it never enters one) as `path/`.
	const [untracked, ignored, ignoredFolded, staged] = await Promise.all([
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--exclude-standard"], dir),
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--ignored", "--exclude-standard"], dir),
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], dir),
		git([...PINNED_STATUS, "ls-files", "-z", "--stage"], dir),
	]);
	if (untracked.exitCode !== 0 || ignored.exitCode !== 0 || ignoredFolded.exitCode !== 0 || staged.exitCode !== 0) return false;
	const ignoredNames = nulSeparated(ignoredFolded.stdout);
	walk.scan.ignored.push(...ignoredNames.map((name) => prefix + name));
	if (depth === 0) walk.scan.ignoredHere = ignoredNames;
	const found: { path: string; kind: (typeof NESTED_KINDS)[number] }[] = [
		...repositoryFolders(untracked.stdout).map((path) => ({ path, kind: "untracked" as const })),
		...repositoryFolders(ignored.stdout).map((path) => ({ path, kind: "ignored" as const })),
		...(await populatedGitlinks(dir, staged.stdout)).map((path) => ({ path, kind: "submodule" as const })),
	];
	for (const { path, kind } of found) {
		const at = join(dir, path);
		if (depth + 1 > MAX_DEPTH) {
			const loses = [`repositories nested deeper than ${MAX_DEPTH} levels, which discern does not look into`];
			walk.scan.repositories.push({ path: prefix + path, kind, git_dir: join(at, ".git"), checked_out: true, loses });
			continue;
		}
		const judged = await losses(at, walk);
		walk.scan.repositories.push({ path: prefix + path, kind, git_dir: judged.gitDir, checked_out: true, loses: judged.loses });
		// An unreadable one is not entered: git would answer for the checkout around it.
		if (judged.readable && !(await scanInto(at, `${prefix}${path}/`, depth + 1, walk))) judged.loses.push("files git could not list");
	}
	// A bare repository in an ignored folder is files to git, and none of them is saved.
	for (const path of await bareRepositories(dir, ignored.stdout)) {
		const at = join(dir, path);
		const gitDir = await realPathOf(at);
		walk.judged.add(gitDir);
		walk.scan.repositories.push({ path: prefix + path, kind: "ignored", git_dir: at, checked_out: true, loses: await commitLosses(at, gitDir, walk) });
	}
	return true;
}

/** Submodule repositories under a git dir's modules/ that no checkout led to (deinitialized, or the folder deleted): their commits go with the git dir. */
async function scanModules(dir: string, name: string, depth: number, walk: Walk): Promise<void> {
	if (depth > MAX_MODULE_DEPTH) return;
	const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
	for (const entry of entries) {
		if (!entry.isDirectory()) continue;
		const at = join(dir, entry.name);
		const path = name ? `${name}/${entry.name}` : entry.name;
		if (!(await isGitDir(at))) {
			await scanModules(at, path, depth + 1, walk);
			continue;
		}
		const gitDir = await realPathOf(at);
		if (!walk.judged.has(gitDir)) {
			walk.judged.add(gitDir);
			walk.scan.repositories.push({ path, kind: "submodule", git_dir: at, checked_out: false, loses: await commitLosses(at, gitDir, walk) });
		}
		// A submodule's own submodules live in its modules/.
		await scanModules(join(at, "modules"), path, depth + 1, walk);
	}
}

/** `ls-files --others` names that end in `/`: folders git did not enter because each is a repository of its own. */
function repositoryFolders(listing: string): string[] {
	return nulSeparated(listing)
		.filter((name) => name.endsWith("/"))
		.map((name) => name.slice(0, -1));
}

/** Folders among the listed files that are bare repositories: a listed `HEAD` beside `objects/` and `refs/` folders. */
async function bareRepositories(dir: string, listing: string): Promise<string[]> {
	const found: string[] = [];
	for (const name of nulSeparated(listing)) {
		if (!name.endsWith("/HEAD")) continue;
		const folder = name.slice(0, -"/HEAD".length);
		if (await isGitDir(join(dir, folder))) found.push(folder);
	}
	return found;
}

async function isGitDir(path: string): Promise<boolean> {
	const [head, objects, refs] = await Promise.all(["HEAD", "objects", "refs"].map((name) => lstat(join(path, name)).catch(() => null)));
	return Boolean(head?.isFile() && objects?.isDirectory() && refs?.isDirectory());
}

/** Gitlinks (mode 160000) of the index whose folder holds a checkout (`.git` folder or file): what a removal deletes. */
async function populatedGitlinks(dir: string, listing: string): Promise<string[]> {
	const paths: string[] = [];
	for (const record of nulSeparated(listing)) {
		const tab = record.indexOf("\t");
		if (tab < 0 || !record.startsWith("160000 ")) continue;
		const path = record.slice(tab + 1);
		if (await lstat(join(dir, path, ".git")).catch(() => null)) paths.push(path);
	}
	return [...new Set(paths)];
}

/**
 * What deleting the repository checked out at `at` loses: its uncommitted
 * work (read without its own configuration: foreign-work.ts), and, when its
 * objects live inside what is removed, its commits no remote-tracking
 * branch holds. Unreadable when git will not open it there.
 */
async function losses(at: string, walk: Walk): Promise<{ loses: string[]; gitDir: string; readable: boolean }> {
	const top = await git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"], at);
	// Three folders, one a line: more lines mean a path holds a line break, and no split of them can be trusted (printable-path.ts).
	const lines = answerLines(top.stdout);
	const [toplevel, gitDir, common] = lines;
	// A `.git` git will not read here would send git to the enclosing checkout: judged as unreadable, never as clean.
	if (top.exitCode !== 0 || lines.length !== 3 || !toplevel || !gitDir || !common || (await realPathOf(toplevel)) !== (await realPathOf(at)))
		return { loses: ["git cannot read it as a repository"], gitDir: join(at, ".git"), readable: false };
	const loses: string[] = [];
	const work = await foreignWork({ toplevel, gitDir, commonDir: common });
	if (work === null) loses.push("git could not tell whether it has uncommitted changes");
	else if (work > 0) loses.push(plural(work, "uncommitted change or untracked file", "uncommitted changes or untracked files"));
	const objects = await realPathOf(common);
	walk.judged.add(objects);
	loses.push(...(await commitLosses(at, objects, walk)));
	return { loses, gitDir: common, readable: true };
}

/** Commits of the repository at `gitDir` (branches, tags, a detached HEAD, the stash) that no remote-tracking branch holds, when its objects go with the removal. */
async function commitLosses(at: string, gitDir: string, walk: Walk): Promise<string[]> {
	if (!walk.doomed.some((root) => isInside(root, gitDir))) return [];
	const only = await git(["--git-dir", gitDir, "rev-list", "--count", "--all", "--not", "--remotes", "--"], at);
	const count = Number(only.stdout.trim());
	if (only.exitCode !== 0 || only.stdout.trim() === "" || !Number.isInteger(count)) return ["git could not count its commits"];
	return count > 0 ? [`${plural(count, "commit")} no remote-tracking branch holds`] : [];
}
