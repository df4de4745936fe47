import { lstatSync, readFileSync, statfsSync } from "node:fs";

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

/** Facts about a checkout's files, and the conversions they hold under: facts kept under other attributes are not used. */
export interface KnownContent {
	context: string;
	files: Map<string, KnownFile>;
}

export interface KnownFile {
	/** The fingerprint (see `statKey`). */
	stat: string;
	/** The blob id of the file's raw bytes. */
	blob: string;
}

/** A file's fingerprint as one string: equal strings, same size, times, inode, device and mode. */
export function statKey(found: { size: bigint; mtimeNs: bigint; ctimeNs: bigint; ino: bigint; dev: bigint; mode: bigint }): string {
	return `${found.size}:${found.mtimeNs}:${found.ctimeNs}:${found.ino}:${found.dev}:${found.mode}`;
}

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
	const field = stat.slice(stat.lastIndexOf(":") + 1);
	if (!/^\d+$/.test(field)) return false;
	const mode = Number(field);
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
	let device: bigint;
	let type: number;
	if (process.platform !== "linux") return null;
	try {
		device = lstatSync(root, { bigint: true }).dev;
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
	return { ns: BigInt(Math.ceil(seconds * 1000)) * 1_000_000n, device: String(device) };
}

export interface Horizon {
	/** Nanoseconds after a file's last stamp from which a read of it is vouched for by its stat. */
	ns: bigint;
	/** The checkout's device: a file on another is never vouched for. */
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
	const [, mtime, ctime, , device] = stat.split(":");
	if (mtime === undefined || ctime === undefined || !/^\d+$/.test(mtime) || !/^\d+$/.test(ctime) || device !== horizon.device) return false;
	const limit = readFrom - horizon.ns;
	return BigInt(mtime) < limit && BigInt(ctime) < limit;
}

/** Now, in nanoseconds since the epoch, on the clock file systems stamp times with. */
export function nowNs(): bigint {
	return BigInt(Date.now()) * 1_000_000n;
}

/** The facts as text: `stat NUL blob NUL path NUL` per file (a path may hold any byte but NUL). */
export function encodeKnown(files: ReadonlyMap<string, KnownFile>): string {
	const parts: string[] = [];
	for (const [path, file] of files) parts.push(file.stat, file.blob, path);
	return parts.length === 0 ? "" : `${parts.join("\0")}\0`;
}

/** The facts back from `encodeKnown`'s text; null when it is not that text. */
export function decodeKnown(text: string): Map<string, KnownFile> | null {
	const fields = text.split("\0");
	if (fields.pop() !== "" || fields.length % 3 !== 0) return text === "" ? new Map() : null;
	const files = new Map<string, KnownFile>();
	for (let i = 0; i < fields.length; i += 3) {
		const stat = fields[i] as string;
		const blob = fields[i + 1] as string;
		const path = fields[i + 2] as string;
		if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(blob) || path === "" || stat === "") return null;
		files.set(path, { stat, blob });
	}
	return files;
}
