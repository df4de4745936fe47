import { lstatSync } from "node:fs";
import { lstat, readlink, rm } from "node:fs/promises";
import { join } from "node:path";
import { mapBounded } from "../../platform/bounded.ts";
import type { Captured } from "../../platform/process.ts";
import { blobId, hashFile } from "../blob-id.ts";
import type { ChangedPath } from "../status.ts";
import type { Entry, LfsPointer } from "./expected-content.ts";
import { hashAll } from "./hash-jobs.ts";
import { lstatKeys, modeOfKey, sizeOfKey, statKey } from "./stat-key.ts";

/**
 * The evidence's reading of the files themselves (evidence.ts): every path
 * of the commit checked for its kind, executable bit and content against
 * the commit, and the stat each was verified at, so that a later look
 * reads again only what changed since.
 */

/** Write converted files out as a checkout would, into `folder`; a string when their blobs cannot be read back as hashed. */
export type Checkout = (files: readonly Entry[], folder: string) => Promise<Captured | string>;

/**
 * The files among `entries` whose kind, executable bit or content differ
 * from the commit, with what happened to them; null when git could not
 * write a converted file's checkout. `stats`: the look's own stat of each
 * path, which the file read must still have (tied-read.ts). The kinds and
 * modes are checked here; the bytes are read and hashed together, on every
 * core when there are many (hash-jobs.ts), in chunks: memory stays flat
 * whatever a file's size.
 */
export async function verify(
	root: string,
	entries: readonly Entry[],
	pointers: Map<string, LfsPointer>,
	checkout: Checkout,
	scratch: string,
	stats: ReadonlyMap<string, string>,
): Promise<Map<string, ChangedPath["kind"]> | null> {
	const differing = new Map<string, ChangedPath["kind"]>();
	const unreal = unrealFolders(root, entries);
	/** Regular files whose kind and mode are as committed: their bytes are read next. */
	const toRead: Entry[] = [];
	const links: Entry[] = [];
	for (const entry of entries) {
		// A folder on the way replaced by a symbolic link would have the path read somewhere else entirely.
		if (unreal.size > 0 && foldersOf(entry.path).some((folder) => unreal.has(folder))) {
			differing.set(entry.path, "type_changed");
			continue;
		}
		// The kind and mode are the look's own stat of the path (the read below must find that same stat).
		const mode = modeOfKey(stats.get(entry.path));
		const kind = mode === null ? null : mode & 0o170000;
		if (mode === null) differing.set(entry.path, "deleted");
		else if (entry.mode === "120000") kind === 0o120000 ? links.push(entry) : differing.set(entry.path, "type_changed");
		else if (kind !== 0o100000) differing.set(entry.path, "type_changed");
		// git records a file as executable when its owner may execute it.
		else if ((entry.mode === "100755") !== ((mode & 0o100) !== 0)) differing.set(entry.path, "modified");
		else toRead.push(entry);
	}
	// A link's target is read tied as a file's bytes are: its stat before and after must be the look's (a folder on its way
	// swapped for one holding the committed link would otherwise have the look read that one).
	await mapBounded(links, READERS, async (entry) => {
		const path = join(root, entry.path);
		const expected = stats.get(entry.path);
		const before = await lstat(path, { bigint: true }).catch(() => null);
		const target = await readlink(path, { encoding: "buffer" }).catch(() => null);
		const after = await lstat(path, { bigint: true }).catch(() => null);
		const tied = before !== null && after !== null && statKey(before) === expected && statKey(after) === expected;
		if (!tied || !target || blobId(target, entry.blob.length) !== entry.blob) differing.set(entry.path, "modified");
	});
	// The bytes of the very file the look stat'ed: a file (or a folder on its way) swapped since is read as changed.
	const hexLength = entries[0]?.blob.length ?? 40;
	const reads = await hashAll(
		root,
		hexLength,
		toRead.map((entry) => ({ path: entry.path, expected: stats.get(entry.path), withSha256: pointers.has(entry.path) })),
	);
	/** Converted files, with the blob id of the bytes the tied read found in each: a checkout's file must hash the same. */
	const converted = new Map<Entry, string>();
	for (const entry of toRead) {
		const read = reads.get(entry.path) ?? "unreadable";
		if (typeof read === "string") {
			differing.set(entry.path, read);
			continue;
		}
		// A converted file must hold what a checkout writes (CRLF, an expanded $Id$, UTF-16), not merely the blob's bytes.
		if (read.blob === entry.blob && entry.check !== "converted") continue;
		const pointer = pointers.get(entry.path);
		if (pointer) {
			if (read.sha256 !== pointer.oid || sizeOfKey(stats.get(entry.path)) !== pointer.size) differing.set(entry.path, "modified");
			continue;
		}
		if (entry.check === "converted") converted.set(entry, read.blob);
		else differing.set(entry.path, "modified");
	}
	if (converted.size > 0) {
		// What a checkout would write, with the commit's attributes and pinned settings (filters other
		// than LFS were refused): then the bytes must be exactly those, not merely clean to the blob.
		// It writes them from a private store of blobs read back and hashed: a forged one would be written and matched.
		const folder = join(scratch, "checkout");
		await rm(folder, { recursive: true, force: true });
		const written = await checkout([...converted.keys()], folder);
		if (typeof written === "string" || written.exitCode !== 0) return null;
		// Compared with what the tied read found, never read from the tree again by path (a folder swapped meanwhile would be read instead).
		await mapBounded([...converted], READERS, async ([entry, found]) => {
			const expected = join(folder, entry.path);
			const size = (await lstat(expected).catch(() => null))?.size;
			const wanted = size === undefined ? null : hashFile(expected, size, entry.blob.length, false);
			if (wanted?.blob !== found) differing.set(entry.path, "modified");
		});
		await rm(folder, { recursive: true, force: true });
	}
	return differing;
}

/** The folders on the way to `path`, outermost first (`a`, `a/b` for `a/b/c`). */
function foldersOf(path: string): string[] {
	const folders: string[] = [];
	for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) folders.push(path.slice(0, slash));
	return folders;
}

function isRealFolder(path: string): boolean {
	try {
		return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
	} catch {
		// A file on the way (ENOTDIR), a folder discern may not look in: not a folder the commit's files can be read through.
		return false;
	}
}

/** The folders on the way to `entries` that are not real folders (a symbolic link, a file, gone), each asked once. */
function unrealFolders(root: string, entries: readonly Entry[]): Set<string> {
	const asked = new Set<string>();
	const unreal = new Set<string>();
	for (const entry of entries) {
		for (const folder of foldersOf(entry.path)) {
			if (asked.has(folder)) continue;
			asked.add(folder);
			if (!isRealFolder(join(root, folder))) unreal.add(folder);
		}
	}
	return unreal;
}

/** Files read at once: enough to keep the disk busy, few enough to keep memory flat. */
const READERS = 8;

/**
 * The full fingerprint of every tracked file (stat-key.ts), by path ("absent"
 * when gone): one system call a file, one after another, which is all a look
 * at an unchanged tree costs per file.
 */
export async function fingerprint(root: string, entries: readonly Entry[]): Promise<Map<string, string>> {
	const keys = lstatKeys(
		root,
		entries.map((entry) => entry.path),
	);
	const stats = new Map<string, string>();
	for (const [n, entry] of entries.entries()) stats.set(entry.path, keys[n] as string);
	return stats;
}
