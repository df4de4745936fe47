import { lstatSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readRegularFile } from "../../platform/files.ts";
import type { Captured } from "../../platform/process.ts";
import { complaint } from "../run.ts";
import type { ChangedPath } from "../status.ts";

/**
 * The checkout's own index, judged against the commit: jobs that ask git
 * which files there are (`git ls-files`, `git grep`, a pre-commit run) read
 * that index, not the files, so a path staged as deleted, added or changed
 * is a change even when the file on disk is the committed one.
 *
 * git lists it (`ls-files -s`) and every entry is compared (`stagedChanges`).
 * Index bytes judged to hold exactly the commit's entries are remembered by
 * their sha256 (kept sealed with the evidence's other facts between runs,
 * known-content.ts): a look that finds the same bytes again knows git's
 * answer without asking. Only bytes git read whole, alone, are remembered:
 * git is handed a copy of exactly the bytes hashed, as the index of a fresh
 * repository of discern's own holding nothing else. A split index names a
 * shared file, which the bytes say nothing of and whose checksum git does
 * not check, and git looks for it beside the index and in the repository:
 * there it finds none, and fails. Such an index (or one git cannot read
 * without the repository's objects, a sparse one) is then listed where it
 * is, every look, and never remembered.
 */

/** What one look found of the checkout's own index. */
export interface StagedReading {
	/** Every difference from the commit's entries; null when git could not read the index (`complaint` says why). */
	changes: ChangedPath[] | null;
	complaint: string;
	/** The sha256 of the index's bytes when they hold exactly the commit's entries (to remember), else null. */
	clean: string | null;
}

/** Lists an index's entries: `git ls-files -s -z`, with the environment given added (GIT_INDEX_FILE, and GIT_DIR for a copy). */
export type IndexLister = (env: Record<string, string>) => Promise<Captured>;

/** Runs `use` with the environment that points git at a fresh, empty repository of discern's own (its GIT_DIR), gone after; a string when none could be made. */
export type AloneRunner = <T>(use: (env: Record<string, string>) => Promise<T>) => Promise<T | string>;

/** Larger than the index of any repository (a million paths take ~100 MB). */
const MAX_INDEX_BYTES = 1024 * 1024 * 1024;

/**
 * Reads `path` (the checkout's index) for one look each call; `remembered`:
 * the sha256 of bytes judged clean against the same commit before; `alone`:
 * where a copy is listed (see `AloneRunner`).
 */
export function ownIndexJudge(options: {
	path: string;
	/** What the index must hold (made only when git must be asked). */
	expected: () => IndexExpectation;
	remembered: string | null;
	list: IndexLister;
	alone: AloneRunner;
}): () => Promise<StagedReading> {
	const { path, list, alone } = options;
	let remembered = options.remembered;
	let expected: IndexExpectation | undefined;
	const judged = (read: Captured, digest: string | null): StagedReading => {
		expected ??= options.expected();
		const changes = stagedChanges(read, expected);
		const clean = digest !== null && changes?.length === 0 ? digest : null;
		if (clean) remembered = clean;
		return { changes, complaint: complaint(read.stderr), clean };
	};
	return async () => {
		let place: ReturnType<typeof lstatSync>;
		try {
			place = lstatSync(path, { throwIfNoEntry: false });
		} catch (error) {
			return { changes: null, complaint: complaint((error as NodeJS.ErrnoException).code ?? "unreadable"), clean: null };
		}
		// Never handed to git as found: the first look is not bounded, and git would wait forever on a FIFO put there.
		if (place && !place.isFile()) return { changes: null, complaint: complaint("the index is not a regular file"), clean: null };
		const bytes = place ? readRegularFile(path, MAX_INDEX_BYTES) : null;
		if (bytes) {
			const digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
			if (digest === remembered) return { changes: [], complaint: "", clean: digest };
			const read = await alone(async (env) => {
				const copy = join(env.GIT_DIR ?? "", "index");
				if (!env.GIT_DIR || !writeCopy(copy, bytes)) return null;
				const listed = await list({ ...env, GIT_INDEX_FILE: copy });
				// A shared file planted beside the copy meanwhile would have had git read more than the bytes hashed.
				return sharedIndexBeside(copy) ? null : listed;
			});
			if (read !== null && typeof read !== "string" && read.exitCode === 0) return judged(read, digest);
		}
		// None (every entry is then staged as deleted), or bytes git cannot read alone (a split index): git lists it where it is.
		return judged(await list({ GIT_INDEX_FILE: path }), null);
	};
}

/** Removed first (whatever a job left there), then made anew, never opened as found. */
function writeCopy(copy: string, bytes: Uint8Array): boolean {
	try {
		rmSync(copy, { recursive: true, force: true });
		writeFileSync(copy, bytes, { flag: "wx", mode: 0o600 });
		return true;
	} catch {
		return false;
	}
}

/** Whether a split index's shared file (`sharedindex.<id>`) sits in the copy's folder, where git would read it. */
function sharedIndexBeside(copy: string): boolean {
	try {
		return readdirSync(dirname(copy)).some((name) => name.startsWith("sharedindex."));
	} catch {
		return true;
	}
}

/** What the checkout's index must hold at each path: `"<mode> <object>"` as `git ls-files -s` lists it. */
export type IndexExpectation = ReadonlyMap<string, string>;

/** The commit's records as index entries: git stores a regular file's mode as 100644 or 100755 whatever the tree wrote. */
export function indexExpectation(records: readonly { path: string; mode: string; blob: string }[]): IndexExpectation {
	return new Map(records.map((record) => [record.path, `${indexMode(record.mode)} ${record.blob}`]));
}

function indexMode(mode: string): string {
	const bits = Number.parseInt(mode, 8);
	if ((bits & 0o170000) !== 0o100000) return mode;
	return bits & 0o100 ? "100755" : "100644";
}

/**
 * Every entry of an index (`ls-files -s -z`) compared with the commit's,
 * one by one: not `diff-index --cached`, which skips a folder whose entry in
 * the index's own tree cache says it matches, and that cache is written by
 * whoever writes the index. Null when git could not read it.
 */
export function stagedChanges(read: Captured, expected: IndexExpectation): ChangedPath[] | null {
	if (read.exitCode !== 0) return null;
	const changes = new Map<string, ChangedPath>();
	const seen = new Set<string>();
	for (const record of read.stdout.split("\0")) {
		// "<mode> <object> <stage>\t<path>"
		const tab = record.indexOf("\t");
		if (tab < 0) continue;
		const [mode = "", object = "", stage = ""] = record.slice(0, tab).split(" ");
		const path = record.slice(tab + 1);
		seen.add(path);
		const wanted = expected.get(path);
		if (stage !== "0") changes.set(path, { path, kind: "conflicted", staged: true });
		else if (wanted === undefined) changes.set(path, { path, kind: "added", staged: true });
		else if (wanted !== `${mode} ${object}`) changes.set(path, { path, kind: wanted.split(" ")[0] === mode ? "modified" : "type_changed", staged: true });
	}
	for (const path of expected.keys()) if (!seen.has(path)) changes.set(path, { path, kind: "deleted", staged: true });
	return [...changes.values()];
}
