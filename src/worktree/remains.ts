import { lstat, readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { isInside, realPathOf } from "../platform/files.ts";
import { quoteName } from "../text/terminal.ts";
import { worktreeParent } from "./parent.ts";

/**
 * Whether the folder a stopped removal left (`path`, as git's admin dir
 * names it) may be taken away by a drop that finishes it. Null when it may,
 * else why not.
 *
 * The path comes from git's admin files, and the mark that says a removal
 * started is sealed with a key in the git dir: an agent running as the same
 * user can rewrite the first and forge the second. So neither chooses what
 * goes: the folder must be inside the folder discern places worktrees in
 * (the configured [worktree].root, or `<main>.worktrees`), never that folder
 * itself, never the main checkout, the git dir or another worktree (nor one
 * holding them), and hold no `.git` at its top (itself or a folder right
 * inside it: a repository, never a worktree's remains). Even then, the drop
 * moves it aside rather than deleting it (see `Keeper.moveFolderAside`).
 */
export async function remainsMayGo(
	mainRoot: string,
	commonDir: string,
	worktreeRoot: string,
	path: string,
	otherWorktrees: readonly string[],
): Promise<string | null> {
	const parent = await worktreeParent(mainRoot, worktreeRoot);
	if (!parent.ok) return `the folder worktrees go in ${parent.why}`;
	const real = await realpath(path).catch(() => null);
	if (real === null) return `its folder ${quoteName(path)} cannot be read`;
	if (real === parent.path || !isInside(parent.path, real))
		return `its folder ${quoteName(real)} is not inside ${quoteName(parent.path)}, where discern places worktrees`;
	const held = [await realPathOf(mainRoot), await realPathOf(commonDir), ...(await Promise.all(otherWorktrees.map((other) => realPathOf(other))))];
	const holds = held.find((inner) => inner === real || isInside(real, inner));
	if (holds) return `its folder ${quoteName(real)} is or holds ${quoteName(holds)}`;
	if (await lstat(join(real, ".git")).catch(() => null)) return `its folder ${quoteName(real)} holds a \`.git\``;
	const entries = await readdir(real, { withFileTypes: true }).catch(() => null);
	if (entries === null) return `its folder ${quoteName(real)} cannot be listed`;
	for (const entry of entries) {
		if (entry.isDirectory() && (await lstat(join(real, entry.name, ".git")).catch(() => null)))
			return `${quoteName(join(real, entry.name))} in its folder is a repository`;
	}
	return null;
}
