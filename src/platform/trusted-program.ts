import { existsSync, realpathSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";

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
		const real = realpathOrNull(found);
		if (real && !inWorkTree(dirname(real)) && !inWorkTree(folder)) return found;
	}
	return null;
}

/** Whether a folder is inside a git work tree (it or an ancestor holds a `.git`). */
function inWorkTree(folder: string): boolean {
	for (let dir = folder; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return true;
		if (dirname(dir) === dir) return false;
	}
}

function realpathOrNull(path: string): string | null {
	try {
		return realpathSync(path);
	} catch {
		return null;
	}
}
