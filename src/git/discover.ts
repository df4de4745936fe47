import { lstat, readFile, realpath } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pointerValue } from "./printable-path.ts";

/**
 * Find the repository around `cwd` by reading the file system the way git
 * does, without starting a git process (every verb pays for that start, and
 * on slow machines it is a good part of `status`). Returns null whenever
 * the layout is anything but the plain cases — a `.git` folder, or a `.git`
 * file pointing at a worktree's or submodule's git dir — or git's own
 * environment overrides apply; the caller then asks `git rev-parse`.
 */
export interface DiscoveredRepository {
	root: string;
	gitDir: string;
	commonDir: string;
}

const OVERRIDES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"] as const;

export async function discoverRepository(cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<DiscoveredRepository | null> {
	if (OVERRIDES.some((key) => env[key] !== undefined)) return null;
	let dir = await realpath(cwd).catch(() => null);
	// Inside a git dir itself git refuses to work; let it say so.
	if (dir && (dir.endsWith("/.git") || dir.includes("/.git/"))) return null;
	while (dir) {
		const dotGit = join(dir, ".git");
		const stat = await lstat(dotGit).catch(() => null);
		if (stat?.isDirectory()) return (await looksLikeGitDir(dotGit)) ? withCommonDir(dir, dotGit) : null;
		if (stat?.isFile()) {
			// As git reads it: the file starts with `gitdir: `, and only the line ending after the path is dropped.
			const text = pointerValue(await readFile(dotGit, "utf8").catch(() => ""));
			const pointer = text.startsWith("gitdir: ") ? text.slice("gitdir: ".length) : "";
			if (!pointer) return null;
			const gitDir = await realpath(resolve(dir, pointer)).catch(() => null);
			return gitDir && (await looksLikeGitDir(gitDir)) ? withCommonDir(dir, gitDir) : null;
		}
		if (stat) return null; // A symlink or something stranger: let git decide.
		const parent = dirname(dir);
		if (parent === dir) return null;
		dir = parent;
	}
	return null;
}

async function looksLikeGitDir(path: string): Promise<boolean> {
	const head = await lstat(join(path, "HEAD")).catch(() => null);
	return head !== null;
}

async function withCommonDir(root: string, gitDir: string): Promise<DiscoveredRepository | null> {
	const read = await readFile(join(gitDir, "commondir"), "utf8").catch(() => null);
	const pointer = read === null ? null : pointerValue(read);
	if (!pointer) {
		// A bare-looking layout (core.bare, core.worktree) is git's to interpret.
		return (await hasPlainConfig(gitDir)) ? { root, gitDir, commonDir: gitDir } : null;
	}
	const commonDir = await realpath(resolve(gitDir, pointer)).catch(() => null);
	return commonDir && (await hasPlainConfig(commonDir)) ? { root, gitDir, commonDir } : null;
}

/** A config that moves the work tree or declares the repository bare is left to git. */
async function hasPlainConfig(commonDir: string): Promise<boolean> {
	const config = await readFile(join(commonDir, "config"), "utf8").catch(() => null);
	if (config === null) return false;
	// Any `bare` value but an explicit false (git also accepts 1, yes, on, or the bare key) is git's to judge.
	return !/^\s*worktree\s*=/im.test(config) && !/^[ \t]*bare[ \t]*(?:=(?![ \t]*(?:false|no|off|0)[ \t]*$).*)?$/im.test(config);
}

/**
 * The git dir and common dir a `.git` at `folder` names, as git follows it
 * (a folder, or a file `gitdir: …`, then its `commondir`), without reading
 * the repository's configuration: for a caller that names the work tree to
 * git itself (`GIT_WORK_TREE`), so that a `core.worktree` there (every
 * submodule under `.git/modules` has one) moves nothing. Null when it does
 * not lead to a git dir.
 */
export async function gitDirsAt(folder: string): Promise<{ gitDir: string; commonDir: string } | null> {
	const dotGit = join(folder, ".git");
	const stat = await lstat(dotGit).catch(() => null);
	let gitDir: string | null = null;
	if (stat?.isDirectory()) gitDir = await realpath(dotGit).catch(() => null);
	else if (stat?.isFile()) {
		const text = pointerValue(await readFile(dotGit, "utf8").catch(() => ""));
		const pointer = text.startsWith("gitdir: ") ? text.slice("gitdir: ".length) : "";
		gitDir = pointer ? await realpath(resolve(folder, pointer)).catch(() => null) : null;
	}
	if (!gitDir || !(await looksLikeGitDir(gitDir))) return null;
	const read = await readFile(join(gitDir, "commondir"), "utf8").catch(() => null);
	const pointer = read === null ? null : pointerValue(read);
	const commonDir = pointer ? await realpath(resolve(gitDir, pointer)).catch(() => null) : gitDir;
	return commonDir ? { gitDir, commonDir } : null;
}
