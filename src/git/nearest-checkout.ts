import { stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { locateRepository } from "./repository.ts";

const SIBLING_WORKTREES = ".worktrees";

/**
 * The main checkout a missing folder most likely belonged to, or null: a
 * removed task worktree sits in `<repo>.worktrees/<id>` (start's default) or
 * under a `[worktree].root` inside some checkout. Walk up to the nearest
 * folder that still exists; the sibling `<repo>` of a `<repo>.worktrees`
 * folder wins, else whatever checkout holds that folder. For a hint only:
 * nothing runs there.
 */
export async function mainCheckoutNear(missing: string, env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
	const existing = await nearestExistingFolder(resolve(missing));
	if (!existing) return null;
	const candidates = basename(existing).endsWith(SIBLING_WORKTREES)
		? [join(dirname(existing), basename(existing).slice(0, -SIBLING_WORKTREES.length)), existing]
		: [existing];
	for (const candidate of candidates) {
		if (!(await isFolder(candidate))) continue;
		const located = await locateRepository(candidate, env).catch(() => null);
		if (!located?.found) continue;
		const { repository } = located;
		// The main checkout owns the common git dir; a bare repository has none to name.
		if (repository.location === "main") return repository.root;
		return basename(repository.commonDir) === ".git" ? dirname(repository.commonDir) : null;
	}
	return null;
}

async function nearestExistingFolder(path: string): Promise<string | null> {
	for (let folder = dirname(path); ; folder = dirname(folder)) {
		if (await isFolder(folder)) return folder;
		if (dirname(folder) === folder) return null;
	}
}

function isFolder(path: string): Promise<boolean> {
	return stat(path).then(
		(found) => found.isDirectory(),
		() => false,
	);
}
