import { existsSync, readlinkSync, realpathSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";

/**
 * A program's absolute path, in PATH's order, skipping what a checkout could
 * have put there: a relative folder (`.`), and a folder inside a git work
 * tree (an activated `.venv/bin`, `node_modules/.bin` under `npm run` or
 * `npx`). Files there are a job's (or an agent's) to write: a `git` there
 * would answer every question the gate asks, an `sh` there would run every
 * job. Null when PATH has none outside a work tree.
 */
export function programOutsideWorkTrees(name: string, path: string = process.env.PATH ?? ""): string | null {
	for (const folder of path.split(delimiter)) {
		if (!isAbsolute(folder)) continue;
		const found = Bun.which(name, { PATH: folder });
		if (!found) continue;
		if (linksOutsideWorkTrees(found)) return found;
	}
	return null;
}

/**
 * Whether a path and every link it goes through on the way to its file lie
 * outside any work tree: one hop inside one (a folder linked from outside,
 * or a link to `/bin/sh` a checkout holds) is a file a job could swap later.
 * The path itself is kept for running (bash run by its own name is not sh).
 */
function linksOutsideWorkTrees(path: string): boolean {
	let at = path;
	for (let hops = 0; hops < 40; hops++) {
		const folder = realpathOrNull(dirname(at));
		if (!folder || inWorkTree(folder)) return false;
		const target = readlinkOrNull(at);
		if (target === null) return true;
		at = resolve(folder, target);
	}
	return false;
}

/** Whether a folder is inside a git work tree (it or an ancestor holds a `.git`). */
function inWorkTree(folder: string): boolean {
	for (let dir = folder; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return true;
		if (dirname(dir) === dir) return false;
	}
}

/** A symbolic link's target, or null when the path is not a link. */
function readlinkOrNull(path: string): string | null {
	try {
		return readlinkSync(path);
	} catch {
		return null;
	}
}

function realpathOrNull(path: string): string | null {
	try {
		return realpathSync(path);
	} catch {
		return null;
	}
}
