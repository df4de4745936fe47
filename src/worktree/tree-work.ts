import { lstat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { COMMITTED_IGNORE_RULES, foldersHolding, infoAttributes, strayAttributeFiles } from "../git/evidence/outside-the-tree.ts";
import { ignoredFoldersAsker, unlistedEntries } from "../git/evidence/unlisted.ts";
import { type IndexEntry, readIndexEntries } from "../git/index-entries.ts";
import { nulSeparated } from "../git/nul-list.ts";
import { filesHiddenFromStatus } from "../git/repository.ts";
import { git } from "../git/run.ts";
import { isHiddenTag, JUDGED_SETTINGS, parsePorcelainV2, type WorkingState } from "../git/status.ts";
import { readRegularFile } from "../platform/files.ts";
import { submodulesWithWork } from "./submodule-work.ts";

/**
 * The settings every judgement of whether a worktree is clean runs git
 * with, the very list done's evidence uses (git/status.ts): a setting the
 * checkout's own config could use to make `git status` look away (an
 * fsmonitor hook, a stale untracked cache, stat shortcuts, ignored mode
 * bits, a sparse checkout, converted line endings, attributes from outside
 * the tree) cannot make a tree look clean here that done refuses.
 */
export const PINNED_STATUS = JUDGED_SETTINGS;

export interface TreeWork {
	/**
	 * Branch, HEAD and the changes `git status` reports with the settings
	 * above pinned, its untracked files listed under done's rules, and what
	 * else done refuses a tree for (see `readTreeWork`).
	 */
	working: WorkingState;
	/**
	 * Tracked files git is told not to look at (assume-unchanged,
	 * skip-worktree) whose file on disk holds something the index lacks:
	 * uncommitted work a plain status never shows.
	 */
	hidden: string[];
	/** No reported change and no hidden work. */
	clean: boolean;
}

/**
 * Whether a checkout is clean, judged by the rules `done`'s evidence
 * (git/evidence/evidence.ts) applies, without hashing every committed file:
 * `status`, `worktree list`, drop and prune say "clean" only where `done`
 * and `accept` would not refuse the tree as dirty.
 *
 * - the settings done judges under pinned (PINNED_STATUS); each submodule's
 *   HEAD against its gitlink, and its work read without its own
 *   configuration (submodule-work.ts), at any depth;
 * - untracked files under the committed `.gitignore` rules only
 *   (COMMITTED_IGNORE_RULES): a file hidden by `info/exclude` or a global
 *   excludes file is a change, as it is to `done`;
 * - tracked files hidden from status (assume-unchanged, skip-worktree)
 *   whose content differs from the index, or that are missing from disk
 *   (a sparse checkout's: done counts them as deleted);
 * - what the evidence finds outside git's listing, by the same functions:
 *   a FIFO, socket or nested `.git` (unlistedEntries), a `.gitignore` or
 *   `.gitattributes` that is not committed yet is read, or `info/attributes`
 *   converting files (strayAttributeFiles, infoAttributes), each a change named
 *   in parentheses as `done` names it.
 *
 * What only hashing shows (a file edited with its size and times put back,
 * an index whose cached tree lies) stays `done`'s to find. `commonDir`: the
 * repository's common git dir; `gitDir`: the checkout's own, where git reads
 * its index (read in-process then, saving a process: status's budget). Null
 * when git could not answer (never read as clean).
 */
export async function readTreeWork(path: string, commonDir: string, gitDir?: string | null): Promise<TreeWork | null> {
	const run = (args: readonly string[]) => git([...PINNED_STATUS, ...args], path);
	const common = resolve(path, commonDir);
	// git status lists untracked files under COMMITTED_IGNORE_RULES when no global excludes file is read and info/exclude
	// holds no pattern (as the template's, comments only): its own walk then serves, else git lists them by those rules alone.
	// A submodule's HEAD against the recorded commit, whatever .gitmodules says (`ignore = all`), read without entering it: its
	// work is read below (submodule-work.ts), never by git's status run inside it with that repository's own configuration.
	const statusRead = git(
		[
			...PINNED_STATUS,
			"-c",
			"core.excludesFile=/dev/null",
			"status",
			"--porcelain=v2",
			"--branch",
			"-z",
			"--untracked-files=normal",
			"--ignore-submodules=dirty",
		],
		path,
	);
	const othersRead = excludesLocally(common).then((local) =>
		local ? run(["ls-files", "-z", "--others", "--directory", "--no-empty-directory", ...COMMITTED_IGNORE_RULES]) : null,
	);
	// The index: each entry's path, mode, blob and whether status looks away from it. Read in-process when the caller names the git
	// dir git reads it from and it is the plainest kind (index-entries.ts); else, and whenever an entry is hidden, as git lists it.
	const plain = gitDir && process.env.GIT_INDEX_FILE === undefined ? readIndexEntries(gitDir) : null;
	const listing =
		plain && !plain.some((entry) => entry.hidden)
			? Promise.resolve({ entries: plain })
			: run(["ls-files", "-z", "-v", "-s", "--cached"]).then((read) => (read.exitCode === 0 ? indexListing(read.stdout) : null));
	const info = infoAttributes(common);
	// The walk notes every .gitignore and .gitattributes: git is asked which are strays only when one is not tracked, or when a
	// new folder was passed over as ignored. git's answer of which are ignored reads the folder's own .gitignore too: one that
	// says `*` makes its whole new folder look ignored, and the walk never sees it (done counts it: only committed rules hide).
	// Asked beside git's answer of which new folders are ignored, not after it: one wait, not two.
	const ruleFiles: string[] = [];
	let passedOver = false;
	let straysAsked: Promise<string[]> | null = null;
	const trackedPaths = listing.then((listed) => (listed ? listed.entries.map((entry) => entry.path) : []));
	const askStrays = () => {
		straysAsked ??= strayAttributeFiles(run, trackedPaths);
		return straysAsked;
	};
	const asker = ignoredFoldersAsker(run);
	const unlisted = listing.then((listed) =>
		listed
			? unlistedEntries(
					path,
					foldersHolding(listed.entries.map((entry) => entry.path)),
					new Set(listed.entries.filter((entry) => entry.mode === "160000").map((entry) => entry.path)),
					async (candidates) => {
						void askStrays().catch(() => undefined);
						const skipped = await asker(candidates);
						if (skipped && skipped.size > 0) passedOver = true;
						return skipped;
					},
					(file) => void ruleFiles.push(file),
				)
			: null,
	);
	const strays = Promise.all([trackedPaths, unlisted]).then(([tracked]) => {
		const known = new Set(tracked);
		return passedOver || ruleFiles.some((file) => !known.has(file)) ? askStrays() : (straysAsked ?? Promise.resolve([])).then(() => []);
	});
	const outside = Promise.all([info, strays]).then(([fromInfo, fromStrays]) => [...fromInfo, ...fromStrays]);
	// Submodules' own hidden files are only listed recursively: asked only where there are submodules.
	const withSubmodules = listing.then((listed) => (listed?.entries.some((entry) => entry.mode === "160000") ? filesHiddenFromStatus(path) : []));
	const gitlinks = listing.then((listed) =>
		(listed?.entries ?? []).filter((entry) => entry.mode === "160000").map((entry) => ({ path: entry.path, commit: entry.blob })),
	);
	const submoduleWork = gitlinks.then((links) => (links.length > 0 ? submodulesWithWork(path, links) : []));
	for (const pending of [outside, unlisted, withSubmodules, submoduleWork]) void pending.catch(() => undefined);
	const [status, listed, others] = await Promise.all([statusRead, listing, othersRead]);
	if (status.exitCode !== 0 || listed === null || (others && others.exitCode !== 0)) {
		await Promise.allSettled([outside, unlisted, withSubmodules, submoduleWork]);
		return null;
	}
	const [outsideNow, strange, submoduleFlags, submodulesHolding] = await Promise.all([outside, unlisted, withSubmodules, submoduleWork]);
	if (strange === null || submoduleFlags === null || submodulesHolding === null) return null;
	const flagged = [...new Set([...listed.entries.filter((entry) => entry.hidden).map((entry) => entry.path), ...submoduleFlags])];
	const hidden = flagged.length === 0 ? [] : await hiddenWork(path, flagged, new Map(listed.entries.map((entry) => [entry.path, entry])));
	if (hidden === null) return null;
	const state = parsePorcelainV2(status.stdout);
	const untracked = new Set(others ? nulSeparated(others.stdout) : state.changes.filter((change) => change.kind === "untracked").map((change) => change.path));
	const reported = new Set(state.changes.map((change) => change.path));
	const working: WorkingState = {
		...state,
		changes: [
			...state.changes.filter((change) => change.kind !== "untracked"),
			...submodulesHolding.filter((link) => !reported.has(link)).map((link) => ({ path: link, kind: "modified" as const, staged: false })),
			...[...untracked].map((file) => ({ path: file, kind: "untracked" as const, staged: false })),
			...strange.filter((file) => !untracked.has(file)).map((file) => ({ path: file, kind: "untracked" as const, staged: false })),
			...outsideNow.map((problem) => ({ path: `(${problem})`, kind: "modified" as const, staged: false })),
		],
	};
	return { working, hidden, clean: working.changes.length === 0 && hidden.length === 0 };
}

/** The working state with the hidden files holding work among its changes (as modified): every change `done` would name. */
export function everyChange(work: TreeWork): WorkingState {
	return { ...work.working, changes: [...work.working.changes, ...work.hidden.map((path) => ({ path, kind: "modified" as const, staged: false }))] };
}

/** `ls-files -z -v -s --cached`: the index's entries (`H 100644 <blob> 0\t<path>`). */
function indexListing(output: string): { entries: IndexEntry[] } {
	const entries: IndexEntry[] = [];
	for (const record of nulSeparated(output)) {
		const tab = record.indexOf("\t");
		if (tab < 0) continue;
		const [tag = "", mode = "", blob = ""] = record.slice(0, tab).split(" ");
		entries.push({ path: record.slice(tab + 1), mode, blob, hidden: isHiddenTag(tag) });
	}
	return { entries };
}

/**
 * Whether git's own status would hide untracked files by rules that are
 * not committed: info/exclude holding any pattern (not only blank lines and
 * comments). When it cannot be read as a plain file, assumed so.
 */
async function excludesLocally(commonDir: string): Promise<boolean> {
	const path = join(commonDir, "info", "exclude");
	if (!(await lstat(path).catch(() => null))) return false;
	const text = readRegularFile(path, EXCLUDE_BYTES)?.toString("utf8");
	if (text === undefined) return true;
	return text.split("\n").some((line) => line.trim() !== "" && !line.startsWith("#"));
}

/** More than a hand-kept info/exclude holds; a larger one is listed around, not read. */
const EXCLUDE_BYTES = 1024 * 1024;

/**
 * The flagged files that hold work: different from their index entry on
 * disk (hashed under the judged settings), or absent — a sparse checkout's
 * file missing from disk is one done counts as deleted, so the tree is not
 * the commit. One that cannot be compared (a symlink, a folder, a path in a
 * submodule) counts as work.
 */
async function hiddenWork(root: string, flagged: readonly string[], index: ReadonlyMap<string, IndexEntry>): Promise<string[] | null> {
	const blobs = new Map<string, string>();
	for (const path of flagged) {
		const entry = index.get(path);
		if (entry?.mode.startsWith("100") && entry.blob) blobs.set(path, entry.blob);
	}
	const work: string[] = [];
	const compare: string[] = [];
	for (const path of flagged) {
		const info = await lstat(join(root, path)).catch(() => null);
		if (!info) work.push(path);
		else if (info.isFile() && blobs.has(path) && !path.includes("\n")) compare.push(path);
		else work.push(path);
	}
	if (compare.length > 0) {
		const hashed = await git([...PINNED_STATUS, "hash-object", "--stdin-paths"], root, { input: `${compare.join("\n")}\n` });
		if (hashed.exitCode !== 0) return null;
		const shas = hashed.stdout.trim().split("\n");
		compare.forEach((path, index) => {
			if (shas[index] !== blobs.get(path)) work.push(path);
		});
	}
	return work.sort();
}
