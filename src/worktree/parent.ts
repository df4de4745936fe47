import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { unprintablePath } from "../git/printable-path.ts";
import { isInside, realPathOf } from "../platform/files.ts";
import { quoteName } from "../text/terminal.ts";

/**
 * The folder worktrees go in, as its real path (symlinks on the way resolved,
 * so that the path recorded is the one git lists); refused when it is the
 * filesystem root or inside the main checkout (the worktrees would show there
 * as untracked files, and could be committed).
 */
export async function worktreeParent(mainRoot: string, root: string): Promise<{ ok: true; path: string } | { ok: false; why: string }> {
	const realMain = await realPathOf(mainRoot);
	const wanted = root === "" ? `${realMain}.worktrees` : resolve(realMain, root);
	// Resolve the deepest folder that exists; the rest is created as written.
	let probe = wanted;
	const rest: string[] = [];
	let real: string | null = null;
	for (;;) {
		real = await realpath(probe).catch(() => null);
		if (real !== null) break;
		const up = dirname(probe);
		if (up === probe) break;
		rest.unshift(basename(probe));
		probe = up;
	}
	const path = real === null ? wanted : join(real, ...rest);
	if (dirname(path) === path) return { ok: false, why: "is the filesystem root" };
	// A worktree there would be one no later discern run could name exactly.
	const unprintable = unprintablePath(path);
	if (unprintable) return { ok: false, why: `is ${quoteName(path)}: ${unprintable}` };
	if (isInside(realMain, path))
		return { ok: false, why: `is inside the main checkout (${quoteName(realMain)}): its worktrees would show there as untracked files` };
	if (real !== null && !(await lstat(real)).isDirectory()) return { ok: false, why: `leads to ${quoteName(real)}, which is not a folder` };
	return { ok: true, path };
}
