import { lstatSync, readFileSync, statfsSync } from "node:fs";
import { FOLDER, type FolderRecord, type TreeRecord } from "../object-check.ts";
import { deviceOfKey, modeOfKey, readKey, statKey } from "./stat-key.ts";

/**
 * What the evidence learned about the files, kept between runs (issue 23):
 * "the file at this path, with exactly this stat, holds the raw bytes of
 * this blob". A later look reads a file again only when its stat is not the
 * one recorded, so an unchanged tree costs a stat per file, not a read.
 *
 * The stat is the whole fingerprint: size, mtime and ctime in nanoseconds,
 * inode, device and mode. A process can put an mtime back, never a ctime;
 * a file swapped for another has another inode (or device). The bytes are
 * read from the file opened, checked to be the one stat'ed (evidence's
 * file-check.ts). A fact is kept only once it is settled: its file's times
 * are older than its read by more than the time bytes can change unstamped
 * (a write through a memory map, until the page is written back: see
 * `unstampedHorizon`), which also covers a write that landed in the same
 * clock tick as the one before it (git's "racy" rule). The same rule
 * decides, within one run, whether a file whose stat has not changed since
 * it was read is read again. Only raw content of a regular file is
 * recorded: a file the commit's attributes convert, a Git LFS file, a
 * symbolic link or a submodule is judged afresh at every look.
 *
 * Where the facts live, and the seal that keeps a hand-written file from
 * being believed, is the caller's (proof/content-ids.ts): this module only
 * says what a fact is and how it is written down.
 */

/**
 * Facts about a checkout's files, and the conversions they hold under:
 * facts kept under other attributes are not used. `tree`: the commit's
 * tree they were learned against, as the evidence walked it from hashed
 * objects (object-check.ts `verifiedTree`); a later look at a commit with
 * the same tree takes its records from here instead of reading and hashing
 * every tree object again. Every fact is about one of its paths.
 */
export interface KnownContent {
	context: string;
	tree: KnownTree;
	/** The sha256 of the checkout's own index as last found holding exactly the tree's entries (own-index.ts); null when it did not. */
	index: string | null;
	files: Map<string, KnownFile>;
}

export interface KnownFile {
	/** The fingerprint (see `statKey`). */
	stat: string;
	/** The blob id of the file's raw bytes. */
	blob: string;
}

/** A tree's id and every record and folder its walk listed (object-check.ts `WalkedTree`), in the walk's order. */
export interface KnownTree {
	id: string;
	records: readonly TreeRecord[];
	folders: readonly FolderRecord[];
}

export { statKey } from "./stat-key.ts";

/**
 * Whether a fact's stat is a regular file with the executable bit the
 * commit records (`100755`: its owner may execute it), where the commit
 * records a regular file: a fact says which bytes a file holds, not that
 * its mode is the commit's (which can change from one commit to the next
 * while the file stays as it is), and never stands for a symbolic link,
 * whose blob is its target's text.
 */
export function fitsMode(stat: string, gitMode: string): boolean {
	if (gitMode !== "100644" && gitMode !== "100755") return false;
	const mode = modeOfKey(stat);
	if (mode === null) return false;
	return (mode & 0o170000) === 0o100000 && (gitMode === "100755") === ((mode & 0o100) !== 0);
}

/**
 * How long after its last stamp a file's bytes can still change without
 * its stat changing, and the device it holds for; null when a stat can
 * never vouch for bytes here.
 *
 * A write through a shared memory map stamps mtime and ctime only when it
 * dirties a clean page: later writes to that page change bytes unstamped
 * until the kernel writes the page back (on Linux within
 * `vm.dirty_expire_centisecs` + `vm.dirty_writeback_centisecs`, 35 s by
 * default) and write-protects it again. Only file systems that write pages
 * back, on a disk, are trusted (Linux: ext2/3/4, XFS, Btrfs, F2FS, ZFS,
 * bcachefs): tmpfs never writes back, and an overlay, FUSE or a network
 * file system can serve bytes its stat does not describe. Only files on the
 * checkout's own device count: a file system mounted on a folder inside the
 * tree is judged by reading, every time. Periodic writeback turned off
 * (`dirty_writeback_centisecs` = 0) leaves pages dirty without limit.
 */
export function unstampedHorizon(root: string): Horizon | null {
	let device: string;
	let type: number;
	if (process.platform !== "linux") return null;
	try {
		device = deviceOfKey(statKey(lstatSync(root, { bigint: true })));
		type = statfsSync(root).type;
	} catch {
		return null;
	}
	// Elsewhere than Linux the write-back delay and the file system's kind are not read here: no stat vouches.
	if (process.platform !== "linux" || !WRITTEN_BACK.has(type)) return null;
	const centisecs = (name: string) => {
		try {
			const value = Number(readFileSync(`/proc/sys/vm/${name}`, "utf8").trim());
			return Number.isInteger(value) && value >= 0 ? value : null;
		} catch {
			return null;
		}
	};
	const expire = centisecs("dirty_expire_centisecs");
	const writeback = centisecs("dirty_writeback_centisecs");
	if (expire === null || writeback === null || writeback === 0) return null;
	// A slow disk can hold a page back a while longer than the settings say.
	const seconds = (expire + writeback) / 100 + 10;
	return { ns: BigInt(Math.ceil(seconds * 1000)) * 1_000_000n, device };
}

export interface Horizon {
	/** Nanoseconds after a file's last stamp from which a read of it is vouched for by its stat. */
	ns: bigint;
	/** The checkout's device, as a stat key records it (see `readKey`): a file on another is never vouched for. */
	device: string;
}

/** statfs types of Linux file systems that write dirty pages back to a disk: ext2/3/4, XFS, Btrfs, F2FS, ZFS, bcachefs. */
const WRITTEN_BACK = new Set([0xef53, 0x58465342, 0x9123683e, 0xf2f52010, 0x2fc12fc1, 0xca451a4e]);

/**
 * Whether a stat vouches for bytes read from `readFrom` on (nanoseconds
 * since the epoch): the file is on the checkout's device and its mtime and
 * ctime are older than the read by more than the horizon (see
 * `unstampedHorizon`; null: never), which is also far wider than any file
 * system's clock tick (git's "racy" rule).
 */
export function isSettled(stat: string, readFrom: bigint, horizon: Horizon | null): boolean {
	if (horizon === null) return false;
	const fields = readKey(stat);
	if (fields === null || fields.device !== horizon.device) return false;
	const limit = readFrom - horizon.ns;
	return fields.mtimeNs < limit && fields.ctimeNs < limit;
}

/** Now, in nanoseconds since the epoch, on the clock file systems stamp times with. */
export function nowNs(): bigint {
	return BigInt(Date.now()) * 1_000_000n;
}

/** Record modes a tree walk lists (a folder is walked, never listed). */
const RECORD_MODES = new Set(["100644", "100755", "120000", "160000"]);
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The tree and the facts as text, in the walk's order: per folder `40000
 * NUL id NUL path NUL count NUL NUL` (count: the records below it, which
 * follow), per record `mode NUL id NUL path NUL stat NUL blob NUL` (a path
 * may hold any byte but NUL), the stat empty when no fact is known of the
 * path, the blob empty when the fact's is the record's own (by far the
 * most: a fact is kept for a file found as committed). A fact about a path
 * the tree does not list is not written.
 */
export function encodeKnown(known: Pick<KnownContent, "tree" | "files">): string {
	const parts: string[] = [];
	const { records, folders } = known.tree;
	let folder = 0;
	const foldersUpTo = (start: number) => {
		for (; folder < folders.length && (folders[folder] as FolderRecord).start <= start; folder++) {
			const { id, path, count } = folders[folder] as FolderRecord;
			parts.push(FOLDER, id, path, String(count), "");
		}
	};
	for (const [n, record] of records.entries()) {
		foldersUpTo(n);
		const fact = known.files.get(record.path);
		parts.push(record.mode, record.id, record.path, fact?.stat ?? "", fact && fact.blob !== record.id ? fact.blob : "");
	}
	foldersUpTo(records.length);
	return parts.length === 0 ? "" : `${parts.join("\0")}\0`;
}

/** The tree's records and folders and the facts back from `encodeKnown`'s text (the tree's id is the caller's); null when it is not that text. */
export function decodeKnown(text: string): { records: TreeRecord[]; folders: FolderRecord[]; files: Map<string, KnownFile> } | null {
	const fields = text.split("\0");
	if (fields.pop() !== "" || fields.length % 5 !== 0) return text === "" ? { records: [], folders: [], files: new Map() } : null;
	const records: TreeRecord[] = [];
	const folders: FolderRecord[] = [];
	const files = new Map<string, KnownFile>();
	for (let i = 0; i < fields.length; i += 5) {
		const mode = fields[i] as string;
		const id = fields[i + 1] as string;
		const path = fields[i + 2] as string;
		const stat = fields[i + 3] as string;
		const blob = fields[i + 4] as string;
		if (!OBJECT_ID.test(id) || path === "") return null;
		if (mode === FOLDER) {
			const count = Number(stat);
			if (!Number.isSafeInteger(count) || count < 0 || blob !== "") return null;
			folders.push({ path, id, start: records.length, count });
			continue;
		}
		if (!RECORD_MODES.has(mode) || (blob !== "" && (stat === "" || !OBJECT_ID.test(blob)))) return null;
		records.push({ path, mode, id });
		if (stat !== "") files.set(path, { stat, blob: blob === "" ? id : blob });
	}
	// Each folder's run of records lies within the list and below its path (checked at its ends: the list is in walk order).
	for (const { path, start, count } of folders) {
		if (start + count > records.length) return null;
		const first = records[start];
		const last = records[start + count - 1];
		if (count > 0 && (!first?.path.startsWith(`${path}/`) || !last?.path.startsWith(`${path}/`))) return null;
	}
	return { records, folders, files };
}
