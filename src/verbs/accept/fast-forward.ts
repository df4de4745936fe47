import { lstat, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { commitOf } from "../../git/ancestry.ts";
import { nulSeparated } from "../../git/nul-list.ts";
import { readBlobs } from "../../git/object-check.ts";
import { withObjectReader } from "../../git/object-reader.ts";
import { realPathOf, removeEmptyFolders } from "../../platform/files.ts";
import { processAlive } from "../../platform/lock.ts";
import { processStart } from "../../platform/process-start.ts";
import type { Keeper } from "../../state/kept.ts";
import { clip } from "../../text/clip.ts";
import { firstLine } from "../../text/first-line.ts";
import { plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";
import { pinnedGit } from "./land.ts";

/**
 * How far a file's time may trail the clock read before git started: the
 * kernel stamps files from a coarse clock, a tick or so behind.
 */
const CLOCK_SLACK_MS = 2_000;

/** What the landing writes in the checkout: every path that differs between the trunk and the proven commit. */
export interface Written {
	/** Path → its `ls-tree` line at `from` (mode, type, object): what the checkout held there. */
	before: Map<string, string>;
	/** Paths the trunk did not track at `from`: the landing creates them. */
	added: string[];
	/** Folders the added paths need that did not exist before the landing. */
	newFolders: string[];
}

/**
 * Land by fast-forwarding the checkout that has the trunk checked out:
 * `git merge --ff-only` holds the index lock across the file update and
 * moves HEAD (the trunk) with its own old-value check, so a `git commit`
 * there can never record the old index on top of the landing. Hooks off,
 * no autostash.
 *
 * git runs in a process group of its own: a terminal's Ctrl-C goes to the
 * foreground group (discern's), and a git killed halfway leaves thousands of
 * files of an unlanded commit in the checkout. discern turns its own signal
 * into an abort that the landing does not pass on: the merge finishes, and
 * accept acts on the signal after it. A merge that fails anyway (killed
 * outright, a file it could not write) is undone: see {@link undoFastForward}.
 * Null on success, else git's first line (and what the undo could not do).
 */
export async function fastForwardCheckout(
	checkout: string,
	from: string,
	to: string,
	env: Readonly<Record<string, string | undefined>>,
	written: Written | null,
	keeper: Keeper,
	onStart?: (pid: number) => void,
): Promise<{ problem: string; killed: boolean } | null> {
	const index = await indexPath(checkout, env);
	const lockBefore = index ? await lstat(`${index}.lock`).catch(() => null) : null;
	const started = Date.now();
	const merged = await pinnedGit(["-c", "merge.autoStash=false", "merge", "--ff-only", "--no-edit", "--no-stat", "--quiet", "--no-autostash", to], checkout, {
		// The trunk's reflog says who moved it, as the compare-and-swap's `-m` does.
		env: { ...env, GIT_REFLOG_ACTION: "discern accept" },
		ownGroup: true,
		...(onStart ? { onStart } : {}),
	});
	if (merged.exitCode === 0) return null;
	const problem = firstLine(merged.stderr) || (merged.killedBy ? `git merge was killed (${merged.killedBy})` : `git merge exited ${merged.exitCode}`);
	const killed = merged.killedBy !== undefined;
	if (!written) return { problem: `${problem}; git could not list what the landing writes, so the checkout's files were not restored`, killed };
	const left = await undoFastForward(checkout, from, to, written, { started, lock: index && !lockBefore ? `${index}.lock` : null, killed }, keeper);
	return { problem: left ? `${problem}; ${left}` : `${problem}; the checkout's index and files were put back as the trunk has them`, killed };
}

/**
 * Put a checkout whose fast-forward failed back on the trunk as it was:
 * while HEAD is still `from`, exactly the paths the landing writes get the
 * index entries and files they had at `from` again; a file at a path the
 * landing added whose time is the merge's is taken away, with the folders
 * made for it. Taken away, never deleted: a person may have written a file
 * there while git ran, and its time is then the merge's too, so every file
 * the undo removes or overwrites is moved into the kept folder first
 * (state/kept.ts), and one that cannot be moved stays. Nothing else of the checkout is touched:
 * a person's untracked files elsewhere stay. git's index lock is removed
 * only when it is ours: absent before, and the git that held it died by a
 * signal, so its own clean-up never ran. Null when the checkout is back as
 * it was (or the landing completed after all), else what is left.
 */
async function undoFastForward(
	checkout: string,
	from: string,
	to: string,
	written: Written,
	run: { started: number; lock: string | null; killed: boolean },
	keeper: Keeper,
): Promise<string | null> {
	const head = await commitOf(checkout, "HEAD");
	if (head === to) return null;
	if (head !== from) return `the checkout's HEAD is at ${head ? head.slice(0, 7) : "?"} now, so its files were left as they are`;
	if (run.lock) {
		const lock = await lstat(run.lock).catch(() => null);
		if (lock && run.killed && lock.mtimeMs >= run.started - CLOCK_SLACK_MS) await rm(run.lock, { force: true });
		else if (lock)
			return `git's index lock ${quoteName(run.lock)} is held (another git process may be running there), so the checkout's files were not restored`;
	}
	const touched = async (path: string) => {
		const found = await lstat(join(checkout, path)).catch(() => null);
		return found === null ? "absent" : found.isDirectory() ? "folder" : found.mtimeMs >= run.started - CLOCK_SLACK_MS ? "written" : "older";
	};
	// The index first: removals before additions, so a file that replaces a folder (or the reverse) never collides.
	const zero = "0".repeat(from.length);
	const entries = [
		...written.added.map((path) => `0 ${zero}\t${path}`),
		...[...written.before].map(([path, line]) => `${line.slice(0, line.indexOf("\t"))}\t${path}`),
	];
	const indexed = await pinnedGit(["update-index", "-z", "--index-info"], checkout, { input: `${entries.join("\0")}\0` });
	if (indexed.exitCode !== 0) return `the index could not be put back: ${clip(firstLine(indexed.stderr) || `exit ${indexed.exitCode}`)}`;
	const kept: string[] = [];
	const root = await realPathOf(checkout);
	for (const path of written.added) {
		const state = await touched(path);
		if (state === "written") {
			if (!(await keeper.moveAside(root, path))) kept.push(path);
		}
		// A file older than the merge is not its; a folder there is the trunk's (its files are restored below).
		else if (state === "older") kept.push(path);
	}
	// Deepest first: a folder empties once what was inside it is gone.
	for (const folder of [...written.newFolders].sort((a, b) => b.length - a.length)) await removeEmptyFolders(root, join(root, folder, "-"));
	const restore: string[] = [];
	for (const [path, line] of written.before) {
		// A submodule's folder is its own repository: never rewritten from here.
		if (line.startsWith("160000 ")) continue;
		const state = await touched(path);
		// A folder the landing made where the trunk has a file: gone once what the landing put in it is.
		if (state === "folder") await removeEmptyFolders(root, join(root, path, "-"));
		// What is there goes aside before git writes over it; one that cannot be moved is never overwritten.
		if (state === "written" && !(await keeper.moveAside(root, path))) kept.push(path);
		else if (state !== "older") restore.push(path);
	}
	if (restore.length > 0) {
		const restored = await pinnedGit(["checkout-index", "-f", "-u", "-z", "--stdin"], checkout, { input: `${restore.join("\0")}\0` });
		if (restored.exitCode !== 0) return `the files could not all be put back: ${clip(firstLine(restored.stderr) || `exit ${restored.exitCode}`)}`;
	}
	// The entries put back carry no stat data: git looks at those files once more, and records that they match.
	await pinnedGit(["update-index", "-q", "--refresh"], checkout);
	const [cached, files] = await Promise.all([
		pinnedGit(["diff-index", "--cached", "--quiet", from, "--"], checkout),
		pinnedGit(["diff-files", "--quiet", "--ignore-submodules=dirty"], checkout),
	]);
	if (kept.length > 0)
		return `${plural(kept.length, "file")} where the landing adds one ${kept.length === 1 ? "was" : "were"} not written by it and ${kept.length === 1 ? "was" : "were"} kept (${kept.slice(0, 10).map(quoteName).join(", ")})`;
	if (cached.exitCode !== 0 || files.exitCode !== 0) return "the checkout's index or files still differ from the trunk: check them with `git status` there";
	return null;
}

/** The paths the landing writes, read before it starts (and before the journal, which keeps its new folders); null when git could not say. */
export async function writtenPaths(checkout: string, from: string, to: string): Promise<Written | null> {
	const [diff, tree] = await Promise.all([
		pinnedGit(["diff", "--name-only", "-z", "--no-renames", from, to, "--"], checkout),
		pinnedGit(["ls-tree", "-r", "-z", "--full-tree", from], checkout),
	]);
	if (diff.exitCode !== 0 || tree.exitCode !== 0) return null;
	const changed = new Set(nulSeparated(diff.stdout));
	const before = new Map<string, string>();
	for (const line of nulSeparated(tree.stdout)) {
		const path = line.slice(line.indexOf("\t") + 1);
		if (changed.has(path)) before.set(path, line);
	}
	const added = [...changed].filter((path) => !before.has(path));
	const newFolders = new Set<string>();
	for (const path of added) {
		for (let folder = dirname(path); folder !== "." && !newFolders.has(folder); folder = dirname(folder)) {
			if (await lstat(join(checkout, folder)).catch(() => null)) break;
			newFolders.add(folder);
		}
	}
	return { before, added, newFolders: [...newFolders] };
}

/**
 * Put back what a landing killed outright left in the checkout (the accept
 * journal says one started from `from` towards `to` at `started`, and the
 * trunk is still at `from`): a later accept, in another process, so git's
 * own state and the files are the only witnesses. A file is the landing's
 * only when its content is `to`'s: such a file the trunk tracked at `from`
 * gets `from`'s content again, one it did not is removed (with the folders
 * the journal says the landing made, once empty); a tracked file the
 * landing deleted comes back. Anything else there (a person's edit since,
 * or a file git left half-written) is kept and named. Null when the
 * checkout is as the trunk has it, else what is left.
 */
export async function undoKilledLanding(
	checkout: string,
	from: string,
	to: string,
	landing: { started: number; newFolders: readonly string[]; git: { pid: number; started: string } | null },
	keeper: Keeper,
): Promise<string | null> {
	const head = await commitOf(checkout, "HEAD");
	if (head !== from) return `the checkout's HEAD is at ${head ? head.slice(0, 7) : "?"} now, so its files were left as they are`;
	const written = await writtenPaths(checkout, from, to);
	if (!written) return "git could not list what the landing writes, so the checkout's files were not restored";
	const newFolders = landing.newFolders;
	const index = await indexPath(checkout, {});
	const lock = index ? await lstat(`${index}.lock`).catch(() => null) : null;
	// The landing's git left it when killed outright: its own, once that git no longer runs (a PID now another process's is not it).
	const gitGone = landing.git !== null && (!processAlive(landing.git.pid) || processStart(landing.git.pid) !== landing.git.started);
	if (index && lock && gitGone && lock.mtimeMs >= landing.started - CLOCK_SLACK_MS) await rm(`${index}.lock`, { force: true });
	else if (index && lock)
		return `git's index lock ${quoteName(`${index}.lock`)} is held (another git process may be running there, or the landing's git was killed), so the checkout's files were not restored`;
	const paths = [...written.before.keys(), ...written.added];
	const landed = await pinnedGit(["ls-tree", "-r", "-z", "--full-tree", to], checkout);
	if (landed.exitCode !== 0) return "git could not read the landed commit, so the checkout's files were not restored";
	const wanted = new Set(paths);
	const toObject = new Map<string, string>();
	for (const line of nulSeparated(landed.stdout)) {
		const path = line.slice(line.indexOf("\t") + 1);
		if (wanted.has(path)) toObject.set(path, line.split(" ")[2]?.split("\t")[0] ?? "");
	}
	// What each path holds now: the landing's content (`to`'s), or something else.
	const present: string[] = [];
	for (const path of paths) {
		const found = await lstat(join(checkout, path)).catch(() => null);
		// A name with a line break cannot go through --stdin-paths: never judged the landing's, so kept.
		if (found?.isFile() && !path.includes("\n")) present.push(path);
	}
	const hashed = present.length > 0 ? await pinnedGit(["hash-object", "--stdin-paths"], checkout, { input: `${present.join("\n")}\n` }) : null;
	if (hashed && hashed.exitCode !== 0) return "git could not read the checkout's files, so they were not restored";
	const hashes = hashed ? hashed.stdout.split("\n") : [];
	const isLandings = new Set(present.filter((path, at) => toObject.get(path) === hashes[at]));
	// The file git was writing when it was killed holds the start of `to`'s content, written since the landing began.
	for (const path of present) {
		const object = toObject.get(path);
		if (isLandings.has(path) || !object || !(await partlyWritten(join(checkout, path), object, landing.started, checkout))) continue;
		isLandings.add(path);
	}
	const kept: string[] = [];
	const restore: string[] = [];
	const root = await realPathOf(checkout);
	for (const path of written.added) {
		// Moved aside, never deleted: the journal that says this landing added the path may be forged (see state/kept.ts).
		if (isLandings.has(path) && (await keeper.moveAside(root, path))) continue;
		if (await lstat(join(root, path)).catch(() => null)) kept.push(path);
	}
	for (const folder of [...newFolders].sort((a, b) => b.length - a.length)) await removeEmptyFolders(root, join(root, folder, "-"));
	for (const [path, line] of written.before) {
		if (line.startsWith("160000 ")) continue;
		const found = await lstat(join(root, path)).catch(() => null);
		if (found === null) restore.push(path);
		else if (isLandings.has(path)) {
			// Its bytes go aside before git writes `from`'s over them.
			if (await keeper.moveAside(root, path)) restore.push(path);
			else kept.push(path);
		} else if (found.isDirectory()) await removeEmptyFolders(root, join(root, path, "-"));
	}
	// The index first (the landing's git may have written it just before it died), then the files from it.
	const entries = [
		...written.added.map((path) => `0 ${"0".repeat(from.length)}\t${path}`),
		...[...written.before].map(([path, line]) => `${line.slice(0, line.indexOf("\t"))}\t${path}`),
	];
	const indexed = await pinnedGit(["update-index", "-z", "--index-info"], checkout, { input: `${entries.join("\0")}\0` });
	if (indexed.exitCode !== 0) return `the index could not be put back: ${clip(firstLine(indexed.stderr) || `exit ${indexed.exitCode}`)}`;
	if (restore.length > 0) {
		const restored = await pinnedGit(["checkout-index", "-f", "-u", "-z", "--stdin"], checkout, { input: `${restore.join("\0")}\0` });
		if (restored.exitCode !== 0) return `the files could not all be put back: ${clip(firstLine(restored.stderr) || `exit ${restored.exitCode}`)}`;
	}
	await pinnedGit(["update-index", "-q", "--refresh"], checkout);
	if (kept.length > 0)
		return `${plural(kept.length, "file")} where the landing adds one ${kept.length === 1 ? "holds" : "hold"} other content than it writes and ${kept.length === 1 ? "was" : "were"} kept (${kept.slice(0, 10).map(quoteName).join(", ")})`;
	const [cached, files] = await Promise.all([
		pinnedGit(["diff-index", "--cached", "--quiet", from, "--"], checkout),
		pinnedGit(["diff-files", "--quiet", "--ignore-submodules=dirty"], checkout),
	]);
	if (cached.exitCode !== 0 || files.exitCode !== 0) return "the checkout's index or files still differ from the trunk: check them with `git status` there";
	return null;
}

/** Whether the file at `path`, changed since `since`, holds a start of the blob `object` (a write cut short). */
async function partlyWritten(path: string, object: string, since: number, checkout: string): Promise<boolean> {
	const found = await lstat(path).catch(() => null);
	if (!found?.isFile() || found.mtimeMs < since - CLOCK_SLACK_MS) return false;
	// Bytes, hashed to their id (a text decoding would mangle a binary file, and an unhashed object could be anything).
	const read = await withObjectReader(checkout, undefined, (reader) => readBlobs(reader, [object]));
	const whole = typeof read === "string" ? undefined : read[0];
	if (!whole) return false;
	const bytes = await readFile(path).catch(() => null);
	return bytes !== null && bytes.length < whole.length && Buffer.from(whole.subarray(0, bytes.length)).equals(bytes);
}

/** Where the checkout's index is (`<git dir>/index`, or what GIT_INDEX_FILE names); null when git could not say. */
async function indexPath(checkout: string, env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
	const result = await pinnedGit(["rev-parse", "--path-format=absolute", "--git-path", "index"], checkout, { env });
	return result.exitCode === 0 ? result.stdout.trim() || null : null;
}
