import { lstat } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import { isInside, realPathOf } from "../platform/files.ts";
import { plural } from "../text/plural.ts";
import { quoteName } from "../text/terminal.ts";
import { PINNED_STATUS, readTreeWork } from "./tree-work.ts";

/**
 * How a git repository sits inside a checkout: not known to it
 * (`untracked`, a clone made there), matched by its ignore rules
 * (`ignored`), or a gitlink in its index (`submodule`, registered in
 * .gitmodules or not). Removing the checkout deletes each with its folder.
 */
export const NESTED_KINDS = ["untracked", "ignored", "submodule"] as const;

export const NestedRepository = v.strictObject({
	path: v.pipe(v.string(), v.description("Its folder, relative to the worktree.")),
	kind: v.picklist(NESTED_KINDS),
	loses: v.pipe(
		v.array(v.string()),
		v.description("What deleting it would lose for good: commits no remote-tracking branch holds, uncommitted changes, untracked files. Empty when nothing."),
	),
});
export type NestedRepository = v.InferOutput<typeof NestedRepository>;

export interface NestedScan {
	repositories: NestedRepository[];
	/**
	 * Ignored files and folders (a wholly ignored folder once), those inside
	 * nested repositories with their path: deleted with the checkout, never saved.
	 */
	ignored: string[];
}

/** How deep discern looks into repositories inside repositories; one deeper is judged as losing something (unknown is never "nothing"). */
const MAX_DEPTH = 4;

/**
 * Every git repository inside the checkout at `root` (at any depth, inside
 * ignored folders and inside each other), each judged for what deleting it
 * would lose, and the ignored files that go with the folder. `adminDir` is
 * the checkout's own git dir: a submodule's objects live under it
 * (`<admin>/modules/…`) and go when the worktree is removed. Null when git
 * could not list the checkout's files (never read as "nothing there").
 */
export async function scanNested(root: string, adminDir: string | null): Promise<NestedScan | null> {
	const doomed = [await realPathOf(root), ...(adminDir ? [await realPathOf(adminDir)] : [])];
	const scan: NestedScan = { repositories: [], ignored: [] };
	return (await scanInto(root, "", 0, doomed, scan)) ? scan : null;
}

/** Nested repositories that stop a removal: any that would lose something, and (`untrackedToo`) every untracked one, which a saved snapshot cannot hold. */
export function blockingRepositories(scan: NestedScan, untrackedToo: boolean): NestedRepository[] {
	return scan.repositories.filter((repository) => repository.loses.length > 0 || (untrackedToo && repository.kind === "untracked"));
}

/** Each repository named with why it stops a removal: `"vendor/lib" (ignored; 2 commits no remote-tracking branch holds)`. */
export function describeBlocking(blocking: readonly NestedRepository[]): string[] {
	return blocking.map((repository) => {
		const untracked = repository.kind === "untracked" ? ["a saved snapshot cannot hold a repository, only a pointer to its commit"] : [];
		const parts = [repository.kind, ...repository.loses, ...untracked];
		return `${quoteName(repository.path)} (${parts.join("; ")})`;
	});
}

async function scanInto(dir: string, prefix: string, depth: number, doomed: readonly string[], scan: NestedScan): Promise<boolean> {
	// Without --directory git descends every folder and names a nested repository (it never enters one) as `path/`.
	const [untracked, ignored, ignoredFolded, staged] = await Promise.all([
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--exclude-standard"], dir),
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--ignored", "--exclude-standard"], dir),
		git([...PINNED_STATUS, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], dir),
		git([...PINNED_STATUS, "ls-files", "-z", "--stage"], dir),
	]);
	if (untracked.exitCode !== 0 || ignored.exitCode !== 0 || ignoredFolded.exitCode !== 0 || staged.exitCode !== 0) return false;
	scan.ignored.push(...nulSeparated(ignoredFolded.stdout).map((name) => prefix + name));
	const found: { path: string; kind: (typeof NESTED_KINDS)[number] }[] = [
		...repositoryFolders(untracked.stdout).map((path) => ({ path, kind: "untracked" as const })),
		...repositoryFolders(ignored.stdout).map((path) => ({ path, kind: "ignored" as const })),
		...(await populatedGitlinks(dir, staged.stdout)).map((path) => ({ path, kind: "submodule" as const })),
	];
	for (const { path, kind } of found) {
		const at = join(dir, path);
		const loses = depth + 1 > MAX_DEPTH ? [`repositories nested deeper than ${MAX_DEPTH} levels, which discern does not look into`] : await losses(at, doomed);
		scan.repositories.push({ path: prefix + path, kind, loses });
		if (depth + 1 <= MAX_DEPTH && !(await scanInto(at, `${prefix}${path}/`, depth + 1, doomed, scan))) {
			loses.push("files git could not list");
		}
	}
	return true;
}

/** `ls-files --others` names that end in `/`: folders git did not enter because each is a repository of its own. */
function repositoryFolders(listing: string): string[] {
	return nulSeparated(listing)
		.filter((name) => name.endsWith("/"))
		.map((name) => name.slice(0, -1));
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
 * What deleting the repository at `at` loses: its uncommitted work (read
 * the way a worktree's is, shortcuts pinned off), and, when its objects
 * live inside what is removed, every commit no remote-tracking branch
 * holds (branches, tags, a detached HEAD, the stash).
 */
async function losses(at: string, doomed: readonly string[]): Promise<string[]> {
	const top = await git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], at);
	const [toplevel, common] = top.stdout.split("\n");
	// A `.git` git will not read here would send git to the enclosing checkout: judged as unreadable, never as clean.
	if (top.exitCode !== 0 || !toplevel || !common || (await realPathOf(toplevel)) !== (await realPathOf(at))) return ["git cannot read it as a repository"];
	const loses: string[] = [];
	const work = await readTreeWork(at);
	if (!work) loses.push("git could not tell whether it has uncommitted changes");
	else if (!work.clean)
		loses.push(`${plural(work.working.changes.length + work.hidden.length, "uncommitted change or untracked file", "uncommitted changes or untracked files")}`);
	const objects = await realPathOf(common);
	if (doomed.some((root) => isInside(root, objects))) {
		const only = await git(["rev-list", "--count", "--all", "--not", "--remotes", "--"], at);
		const count = Number(only.stdout.trim());
		if (only.exitCode !== 0 || !Number.isInteger(count)) loses.push("git could not count its commits");
		else if (count > 0) loses.push(`${plural(count, "commit")} no remote-tracking branch holds`);
	}
	return loses;
}
