import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { join, posix, resolve } from "node:path";
import { isInside } from "../platform/files.ts";

/**
 * The project's map as files: the folder `[map].dir` names, walked from the
 * working tree (not from git objects). Only `.md` files count, hidden
 * entries are ignored, and nothing outside the map folder is ever read: a
 * symlink is followed only when its real path stays inside the map's real
 * path, and the map folder itself must stay inside the repository.
 * Everything is bounded: pages per map, bytes per page, bytes per read.
 */

/** Pages beyond this many are not seen. */
export const MAX_PAGES = 5000;
/** A page is read up to this many bytes. */
export const MAX_PAGE_BYTES = 256 * 1024;
/** Bytes read in all by one digest or search; pages beyond it count but are not read. */
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
const MAX_DEPTH = 32;
/** Folders read in all by one walk (links can make a small tree look large). */
const MAX_FOLDERS = 10_000;

export interface MapFolder {
	/** The map folder as configured, relative to the root, with a trailing slash (`docs/map/`). */
	dir: string;
	/** Its real path. */
	real: string;
}

export type MapOpen = { state: "present"; folder: MapFolder } | { state: "missing"; dir: string } | { state: "outside"; dir: string };

/** The map folder of the repository at `root`, refused when it resolves outside the repository. */
export async function openMapFolder(root: string, configured: string): Promise<MapOpen> {
	const dir = `${posix.normalize(configured.trim().replaceAll("\\", "/")).replace(/\/+$/, "")}/`;
	const lexical = resolve(root, dir);
	if (posix.isAbsolute(dir) || configured.includes("\0") || !isInside(resolve(root), lexical)) return { state: "outside", dir };
	const real = await realpath(lexical).catch(() => null);
	if (real === null) {
		// A dangling symlink is as missing as no folder, unless it points away.
		const link = await lstat(lexical).catch(() => null);
		return link?.isSymbolicLink() ? { state: "outside", dir } : { state: "missing", dir };
	}
	const realRoot = await realpath(root);
	if (!isInside(realRoot, real)) return { state: "outside", dir };
	if (!(await stat(real)).isDirectory()) return { state: "missing", dir };
	return { state: "present", folder: { dir: dir === "./" ? "" : dir, real } };
}

/** One page found by the walk. */
export interface PageFile {
	/** Its address: the path under the map without `.md`; a folder's README is the folder (`api`), the map's own is `README`. */
	target: string;
	/** Its path under the map folder (`api/auth.md`), with `/`. */
	rel: string;
	/** Its real path, checked to be inside the map. */
	real: string;
	/** The top-level folder holding it, or null for a page at the map's root. */
	region: string | null;
}

export function targetOf(rel: string): string {
	const bare = rel.replace(/\.md$/i, "");
	if (/^readme$/i.test(bare)) return "README";
	return bare.replace(/\/readme$/i, "");
}

/**
 * Every `.md` page under the map, in a stable order. A symlink counts only
 * when it resolves inside the map; a linked folder is walked under its own
 * name unless it leads back into a folder being walked (a loop).
 */
export async function walkMap(folder: MapFolder): Promise<PageFile[]> {
	const pages: PageFile[] = [];
	let folders = 0;
	const visit = async (real: string, rel: string, ancestors: readonly string[]): Promise<void> => {
		if (ancestors.length > MAX_DEPTH || ++folders > MAX_FOLDERS) return;
		const entries = await readdir(real, { withFileTypes: true }).catch(() => []);
		entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		for (const entry of entries) {
			if (pages.length >= MAX_PAGES) return;
			if (entry.name.startsWith(".")) continue;
			const path = join(real, entry.name);
			const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
			let isDir = entry.isDirectory();
			let isFile = entry.isFile();
			let target = path;
			if (entry.isSymbolicLink()) {
				const resolved = await realpath(path).catch(() => null);
				if (resolved === null || !isInside(folder.real, resolved)) continue;
				const found = await stat(resolved).catch(() => null);
				isDir = found?.isDirectory() ?? false;
				isFile = found?.isFile() ?? false;
				target = resolved;
			}
			if (isDir) {
				if (ancestors.includes(target) || target === real) continue;
				await visit(target, childRel, [...ancestors, real]);
			} else if (isFile && /\.md$/i.test(entry.name)) {
				const slash = childRel.indexOf("/");
				pages.push({ target: targetOf(childRel), rel: childRel, real: target, region: slash < 0 ? null : childRel.slice(0, slash) });
			}
		}
	};
	await visit(folder.real, "", []);
	return pages;
}

/** Reads pages up to the per-page cap while the shared budget lasts. */
export function pageReader(): (page: PageFile) => Promise<{ content: string; truncated: boolean } | null> {
	let budget = MAX_TOTAL_BYTES;
	return async (page) => {
		if (budget <= 0) return null;
		const file = Bun.file(page.real);
		const size = file.size;
		const take = Math.min(size, MAX_PAGE_BYTES, budget);
		budget -= take;
		const content = await file
			.slice(0, take)
			.text()
			.catch(() => null);
		return content === null ? null : { content, truncated: size > take };
	};
}

/**
 * A target as a person or agent spells it (`api/auth.md`, `docs/map/api/`,
 * `./api/README`), or null when it could lead outside the map: `..`
 * segments, an absolute path, a backslash, a NUL, or any of those hidden in
 * percent-encoding (`%2e%2e/`).
 */
export function normalizeMapTarget(raw: string, dir: string): string | null {
	const spellings = [raw];
	if (raw.includes("%")) {
		try {
			spellings.push(decodeURIComponent(raw));
		} catch {
			return null;
		}
	}
	for (const spelling of spellings) {
		if (/[\0\\]/.test(spelling) || spelling.trim().startsWith("/") || /^[a-zA-Z]:/.test(spelling.trim())) return null;
		if (spelling.split("/").some((segment) => segment.trim() === "..")) return null;
	}
	let target = raw
		.trim()
		.split("/")
		.filter((segment) => segment !== "" && segment !== ".")
		.join("/");
	if (dir !== "" && `${target}/`.startsWith(dir)) target = target.slice(dir.length);
	if (target === "") return "README";
	return targetOf(target.endsWith(".md") || target.endsWith(".MD") ? target : `${target}.md`);
}

/** The page a normalized target names: exactly, else the one page that matches it ignoring case. */
export function findPageFile(pages: readonly PageFile[], target: string): PageFile | undefined {
	const exact = pages.find((page) => page.target === target);
	if (exact) return exact;
	const lowered = target.toLowerCase();
	const folded = pages.filter((page) => page.target.toLowerCase() === lowered);
	return folded.length === 1 ? folded[0] : undefined;
}

/**
 * The repository paths outside the map a page links to: relative markdown
 * links (inline and reference-style), resolved from the page's folder;
 * a leading `/` is the repository root, as on forges. URLs, anchors and
 * links leaving the repository are ignored.
 */
export function linkedPaths(content: string, pageRepoPath: string, mapDir: string): string[] {
	const found = new Set<string>();
	const hrefs: string[] = [];
	for (const match of content.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)) hrefs.push(match[1] ?? "");
	for (const match of content.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm)) hrefs.push(match[1] ?? "");
	const from = posix.dirname(pageRepoPath);
	for (const href of hrefs) {
		if (href === "" || href.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//")) continue;
		let path = href.replace(/[?#].*$/, "");
		try {
			path = decodeURIComponent(path);
		} catch {
			continue;
		}
		if (path === "" || /[\0\\\n\r]/.test(path)) continue;
		const joined = posix.normalize(path.startsWith("/") ? path.slice(1) : posix.join(from, path)).replace(/\/+$/, "");
		if (joined === "" || joined === "." || joined === ".." || joined.startsWith("../")) continue;
		const mapRoot = mapDir.replace(/\/$/, "");
		if (mapRoot === "" || joined === mapRoot || joined.startsWith(`${mapRoot}/`)) continue;
		found.add(joined);
	}
	return [...found];
}
