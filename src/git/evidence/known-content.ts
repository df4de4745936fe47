/**
 * What the evidence learned about the files, kept between runs (issue 23):
 * "the file at this path, with exactly this stat, holds the raw bytes of
 * this blob". A later look reads a file again only when its stat is not the
 * one recorded, so an unchanged tree costs a stat per file, not a read.
 *
 * The stat is the whole fingerprint: size, mtime and ctime in nanoseconds,
 * inode, device and mode. A process can put an mtime back, never a ctime;
 * a file swapped for another has another inode (or device). A fact is kept
 * only once it is settled: the file's mtime and ctime are older than the
 * moment its read began by a margin wider than any file system's clock tick
 * (git's "racy" rule), so a write that came after the read, yet landed in
 * the same tick as the one before it, can never hide behind an unchanged
 * stat. Only raw content is recorded: a file the commit's attributes
 * convert, a Git LFS file, a symbolic link or a submodule is judged afresh
 * at every look.
 *
 * Where the facts live, and the seal that keeps a hand-written file from
 * being believed, is the caller's (proof/content-ids.ts): this module only
 * says what a fact is and how it is written down.
 */

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
 * commit records (`100755`: its owner may execute it): a fact says which
 * bytes a file holds, not that its mode is the commit's, which can change
 * from one commit to the next while the file stays as it is.
 */
export function fitsMode(stat: string, gitMode: string): boolean {
	const field = stat.slice(stat.lastIndexOf(":") + 1);
	if (!/^\d+$/.test(field)) return false;
	const mode = Number(field);
	return (mode & 0o170000) === 0o100000 && (gitMode === "100755") === ((mode & 0o100) !== 0);
}

/** Wider than any clock tick a file system stamps times with (ext4 and APFS: nanoseconds; FAT: two seconds). */
const SETTLED_MARGIN_NS = 3_000_000_000n;

/** Whether a fact about a file read after `readFrom` (nanoseconds since the epoch) can be kept: its times are well before the read. */
export function isSettled(stat: string, readFrom: bigint): boolean {
	const [, mtime, ctime] = stat.split(":");
	if (mtime === undefined || ctime === undefined || !/^\d+$/.test(mtime) || !/^\d+$/.test(ctime)) return false;
	const limit = readFrom - SETTLED_MARGIN_NS;
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
