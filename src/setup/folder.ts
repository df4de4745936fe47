import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isInside } from "../platform/files.ts";

/**
 * What detection may know about one folder of the repository: the names of
 * its regular files and folders, and the text of the few files whose
 * contents matter. Read-only and bounded by design: nothing is run, every
 * read is capped at MAX_MANIFEST_BYTES, a symlink counts only when it stays
 * inside the repository and names a file (folders are never entered through
 * a link, so a link loop or a link out of the repository is never walked).
 */

/** A manifest larger than this is generated or hostile; its contents are not read. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** A folder with more entries than this is read only up to it (a generated folder, not a project root). */
const MAX_ENTRIES = 5000;

export interface Folder {
	/** Relative to the repository root with `/`; "" is the root. */
	rel: string;
	has(name: string): boolean;
	/**
	 * Whether git tracks the file: what a new worktree's checkout holds (a
	 * lockfile a project ignores is not there). Without git's list, `has`.
	 */
	tracked(name: string): boolean;
	/** The text, or null when absent, unreadable, over MAX_MANIFEST_BYTES or not read. */
	text(name: string): string | null;
	/** Names of regular files (links to files inside the repository count). */
	files: readonly string[];
	/** Names of real sub-folders (never links). */
	dirs: readonly string[];
}

/** Files whose contents detection reads; every other file only counts by its presence. */
const READ = new Set([
	"package.json",
	"tsconfig.json",
	"pnpm-workspace.yaml",
	".yarnrc.yml",
	"pyproject.toml",
	"hatch.toml",
	"setup.cfg",
	"tox.ini",
	"requirements.txt",
	"requirements-dev.txt",
	"dev-requirements.txt",
	"requirements_dev.txt",
	"Cargo.toml",
	"go.mod",
	"go.work",
	"GNUmakefile",
	"makefile",
	"Makefile",
]);

export interface FolderReader {
	read(rel: string): Promise<Folder | null>;
}

/** One reader per detection: folders are read at most once, and only inside `root`. `isTracked`: see `Folder.tracked`. */
export async function folderReader(root: string, isTracked?: (path: string) => boolean): Promise<FolderReader> {
	const realRoot = await realpath(root).catch(() => root);
	const cache = new Map<string, Promise<Folder | null>>();
	return {
		read(rel) {
			const key = normalizeRel(rel);
			if (key === null) return Promise.resolve(null);
			let pending = cache.get(key);
			if (!pending) {
				pending = readFolder(realRoot, key, isTracked);
				cache.set(key, pending);
			}
			return pending;
		},
	};
}

/** `a/b`, never absolute, never `..`: a path from a manifest is data, not a way out. */
export function normalizeRel(rel: string): string | null {
	const parts: string[] = [];
	for (const part of rel.replace(/\\/g, "/").split("/")) {
		if (part === "" || part === ".") continue;
		if (part === "..") return null;
		parts.push(part);
	}
	return parts.join("/");
}

async function readFolder(realRoot: string, rel: string, isTracked?: (path: string) => boolean): Promise<Folder | null> {
	const path = rel === "" ? realRoot : join(realRoot, rel);
	// The folder itself must be a real folder: a link on the way would have been refused by the caller's listing, but a manifest names paths too.
	const own = await lstat(path).catch(() => null);
	if (!own?.isDirectory()) return null;
	const real = await realpath(path).catch(() => null);
	if (real === null || !isInside(realRoot, real)) return null;
	const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
	const files: string[] = [];
	const dirs: string[] = [];
	const texts = new Map<string, string>();
	await Promise.all(
		entries.slice(0, MAX_ENTRIES).map(async (entry) => {
			const full = join(path, entry.name);
			if (entry.isDirectory()) {
				dirs.push(entry.name);
				return;
			}
			let isFile = entry.isFile();
			if (entry.isSymbolicLink()) {
				const target = await realpath(full).catch(() => null);
				if (target === null || !isInside(realRoot, target)) return;
				isFile = (await stat(target).catch(() => null))?.isFile() ?? false;
			}
			// Only regular files count: a FIFO named package.json is not a manifest, and reading it would hang.
			if (!isFile) return;
			files.push(entry.name);
			if (!READ.has(entry.name)) return;
			const info = await stat(full).catch(() => null);
			if (!info || info.size > MAX_MANIFEST_BYTES) return;
			const text = await readFile(full, "utf8").catch(() => null);
			if (text !== null) texts.set(entry.name, text);
		}),
	);
	files.sort();
	dirs.sort();
	const present = new Set(files);
	return {
		rel,
		files,
		dirs,
		has: (name) => present.has(name),
		tracked: (name) => present.has(name) && (isTracked?.(inFolder(rel, name)) ?? true),
		text: (name) => texts.get(name) ?? null,
	};
}

/** A path inside the repository, for commands and evidence: `dir/name`, or `name` at the root. */
export function inFolder(rel: string, name: string): string {
	return rel === "" ? name : `${rel}/${name}`;
}
