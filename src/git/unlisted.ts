import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { mapBounded } from "../platform/bounded.ts";

/**
 * What git's listing of untracked files never shows, yet a job can open by
 * name: a FIFO, socket or device (git's walk skips them: a FIFO named
 * `GNUmakefile` or `.cargo/config.toml`, fed by a process outside the gate,
 * is what make or cargo reads), and a `.git` file or folder below the root
 * (git never looks inside one, and a job's git run there takes its config).
 * Looked for in every tracked folder and in every folder git lists nothing
 * for that the committed rules do not ignore (a new folder holding only such
 * an entry, or only ignored files). Null when git could not tell which of
 * those folders are ignored.
 *
 * `folders`: the tracked folders ("" for the root); `submodules`: the
 * submodules' paths (their insides are their own evidence's);
 * `ignored`: which of some untracked folders the committed rules ignore.
 */
export async function unlistedEntries(
	root: string,
	folders: ReadonlySet<string>,
	submodules: ReadonlySet<string>,
	ignored: (candidates: readonly string[]) => Promise<Set<string> | null>,
): Promise<string[] | null> {
	const found: string[] = [];
	const candidates: string[] = [];
	await mapBounded([...folders], READERS, async (folder) => {
		for (const item of await listed(join(root, folder))) {
			const path = folder === "" ? item.name : `${folder}/${item.name}`;
			if (item.name === ".git") {
				if (folder !== "") found.push(path);
			} else if (!item.isFile() && !item.isDirectory() && !item.isSymbolicLink()) found.push(path);
			else if (item.isDirectory() && !folders.has(path) && !submodules.has(path)) candidates.push(path);
		}
	});
	if (candidates.length > 0) {
		const skipped = await ignored(candidates);
		if (skipped === null) return null;
		// Everything inside is ignored, special or nothing (git listed no file there, or listed it already): looked through whole.
		await mapBounded(
			candidates.filter((path) => !skipped.has(path)),
			READERS,
			async (folder) => void found.push(...(await strangeBelow(root, folder))),
		);
	}
	return found.sort();
}

/** Special entries and `.git` entries anywhere below `folder`. */
async function strangeBelow(root: string, folder: string): Promise<string[]> {
	const found: string[] = [];
	const pending = [folder];
	for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
		for (const item of await listed(join(root, next))) {
			const path = `${next}/${item.name}`;
			if (item.name === ".git" || (!item.isFile() && !item.isDirectory() && !item.isSymbolicLink())) found.push(path);
			else if (item.isDirectory()) pending.push(path);
		}
	}
	return found;
}

/** A folder's entries with their kinds (none when it cannot be read: git's own listing warns of that, and is refused). */
function listed(folder: string) {
	return readdir(folder, { withFileTypes: true }).catch(() => []);
}

/** Folders read at once. */
const READERS = 8;
