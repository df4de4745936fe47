import { constants } from "node:fs";
import { type FileHandle, lstat, open, readlink, rm } from "node:fs/promises";
import { join } from "node:path";
import { mapBounded } from "../../platform/bounded.ts";
import type { Captured } from "../../platform/process.ts";
import { blobId, hashFile } from "../blob-id.ts";
import type { ChangedPath } from "../status.ts";
import type { Entry, LfsPointer } from "./expected-content.ts";
import { statKey } from "./known-content.ts";

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
 * write a converted file's checkout. Content is read as a stream, a few
 * files at a time: memory stays flat whatever a file's size.
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
	/** Converted files, with the blob id of the bytes the tied read found in each: a checkout's file must hash the same. */
	const converted = new Map<Entry, string>();
	const folders = new Map<string, Promise<boolean>>();
	await mapBounded(entries, READERS, async (entry) => {
		const path = join(root, entry.path);
		// A folder on the way replaced by a symbolic link would have the path read somewhere else entirely.
		if (!(await realFolders(root, entry.path, folders))) return void differing.set(entry.path, "type_changed");
		const found = await lstat(path).catch(() => null);
		if (!found) return void differing.set(entry.path, "deleted");
		if (entry.mode === "120000") {
			if (!found.isSymbolicLink()) return void differing.set(entry.path, "type_changed");
			const target = await readlink(path, { encoding: "buffer" }).catch(() => null);
			if (!target || blobId(target, entry.blob.length) !== entry.blob) differing.set(entry.path, "modified");
			return;
		}
		if (!found.isFile()) return void differing.set(entry.path, "type_changed");
		// git records a file as executable when its owner may execute it.
		if ((entry.mode === "100755") !== ((found.mode & 0o100) !== 0)) return void differing.set(entry.path, "modified");
		// The bytes of the very file the look stat'ed: a file (or a folder on its way) swapped since is read as changed.
		const read = await hashTied(path, stats.get(entry.path), entry.blob.length, pointers.has(entry.path));
		if (typeof read === "string") return void differing.set(entry.path, read);
		const digests = read;
		// A converted file must hold what a checkout writes (CRLF, an expanded $Id$, UTF-16), not merely the blob's bytes.
		if (digests.blob === entry.blob && entry.check !== "converted") return;
		const pointer = pointers.get(entry.path);
		if (pointer) {
			if (digests.sha256 !== pointer.oid || found.size !== pointer.size) differing.set(entry.path, "modified");
			return;
		}
		if (entry.check === "converted") converted.set(entry, digests.blob);
		else differing.set(entry.path, "modified");
	});
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
			const wanted = size === undefined ? null : await hashFile(expected, size, entry.blob.length, false);
			if (wanted?.blob !== found) differing.set(entry.path, "modified");
		});
		await rm(folder, { recursive: true, force: true });
	}
	return differing;
}

/** Is every folder on the way to `path` a real folder (no symbolic link, no file), as in the commit? Each asked once per look. */
async function realFolders(root: string, path: string, asked: Map<string, Promise<boolean>>): Promise<boolean> {
	for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) {
		const folder = path.slice(0, slash);
		let answer = asked.get(folder);
		if (!answer) {
			answer = lstat(join(root, folder)).then(
				(found) => found.isDirectory(),
				() => false,
			);
			asked.set(folder, answer);
		}
		if (!(await answer)) return false;
	}
	return true;
}

/** Files read at once: enough to keep the disk busy, few enough to keep memory flat. */
const READERS = 8;

/** Files up to this size are read in one call (with READERS at once, a few MB of memory at most). */
const WHOLE_READ_BYTES = 256 * 1024;

/**
 * A file's blob id (and sha256 when asked), read from the file opened, not
 * from whatever the path names a moment later: opened without following a
 * final link (nor blocking on a FIFO), it must be a regular file whose stat,
 * before and after the read, is `expected` (the look's own lstat of the
 * path); otherwise it changed while it was looked at (a file or a folder on
 * its way swapped, a write), and is "modified". A change of kind or a file
 * gone is said as such.
 */
async function hashTied(
	path: string,
	expected: string | undefined,
	hexLength: number,
	withSha256: boolean,
): Promise<{ blob: string; sha256: string } | ChangedPath["kind"]> {
	let handle: FileHandle;
	try {
		handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === "ENOENT" || code === "ENOTDIR" ? "deleted" : code === "ELOOP" ? "type_changed" : "unreadable";
	}
	try {
		const before = await handle.stat({ bigint: true });
		if (!before.isFile()) return "type_changed";
		if (statKey(before) !== expected) return "modified";
		const size = Number(before.size);
		const blob = new Bun.CryptoHasher(hexLength === 64 ? "sha256" : "sha1").update(`blob ${size}\0`);
		const sha256 = withSha256 ? new Bun.CryptoHasher("sha256") : null;
		const buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 0), WHOLE_READ_BYTES) + 1);
		let read = 0;
		for (;;) {
			const { bytesRead } = await handle.read(buffer, 0, buffer.length, read);
			if (bytesRead === 0) break;
			const chunk = buffer.subarray(0, bytesRead);
			blob.update(chunk);
			sha256?.update(chunk);
			read += bytesRead;
			// A file that grew while it was read is not the file that was stat'ed: whatever it grew to is not read.
			if (read > size) return "modified";
		}
		const after = await handle.stat({ bigint: true });
		if (read !== size || statKey(after) !== expected) return "modified";
		return { blob: blob.digest("hex"), sha256: sha256 ? sha256.digest("hex") : "" };
	} catch {
		return "unreadable";
	} finally {
		await handle.close().catch(() => undefined);
	}
}

/** The full fingerprint of every tracked file (known-content.ts), by path ("absent" when gone). */
export async function fingerprint(root: string, entries: readonly Entry[]): Promise<Map<string, string>> {
	const stats = await Promise.all(
		entries.map(async (entry) => {
			const found = await lstat(join(root, entry.path), { bigint: true }).catch(() => null);
			return [entry.path, found ? statKey(found) : "absent"] as const;
		}),
	);
	return new Map(stats);
}

/** The tracked folders (not the root) that are no longer real folders: a link or a file where the commit has a folder. */
export async function foldersReplaced(root: string, folders: ReadonlySet<string>): Promise<string[]> {
	const replaced: string[] = [];
	await mapBounded([...folders], READERS, async (folder) => {
		if (folder === "") return;
		const found = await lstat(join(root, folder)).catch(() => null);
		if (found && !found.isDirectory()) replaced.push(folder);
	});
	return replaced;
}
