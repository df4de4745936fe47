/**
 * A git index file (format version 2) written in-process from a commit's
 * walked records: the evidence's private index, without a `git
 * update-index` process to start. Only what git reads from it matters
 * here — which paths are tracked and with which mode and object — so every
 * stat field is zero, as `update-index --index-info` leaves them.
 *
 * Layout (git's Documentation/gitformat-index.txt): a 12-byte header
 * ("DIRC", version, entry count); one entry per path in byte order of its
 * name — ten 32-bit stat and mode fields, the object id, 16 bits of flags
 * holding the name's length, the name, and 1 to 8 NUL bytes so the entry
 * fills a multiple of 8 bytes; then the hash of everything before it
 * (git's reads skip checking it, `git fsck` does not: the evidence
 * compares the file's bytes itself before every look).
 */

export interface IndexRecord {
	path: string;
	/** As a tree records it: 100644, 100755, 120000 or 160000. */
	mode: string;
	/** The object id in hex: 40 digits (SHA-1) or 64 (SHA-256). */
	id: string;
}

/**
 * The bytes of an index holding exactly `records`, which come from trees
 * read as git writes them (object-check.ts: no name git would refuse to
 * check out); `idBytes` is the repository's id length (20 for SHA-1, 32
 * for SHA-256: the trailer's hash, even with no record). A string when an
 * id is not one of that length.
 */
export function indexFileBytes(records: readonly IndexRecord[], idBytes: number): Uint8Array | string {
	// A commit's tree walked depth first in tree order is already in index order: sorted only when it is not.
	const ordered = inByteOrder(records) ? records : [...records].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
	if (idBytes !== 20 && idBytes !== 32) return `git has no ${idBytes}-byte object ids`;
	// 40 bytes of stat and mode, the id, 2 bytes of flags: then the name.
	const nameAt = 40 + idBytes + 2;
	const lengths = ordered.map((record) => Buffer.byteLength(record.path));
	const sizeOf = (nameBytes: number) => (nameAt + nameBytes + 8) & ~7;
	const body = 12 + lengths.reduce((sum, length) => sum + sizeOf(length), 0);
	const bytes = Buffer.alloc(body + idBytes);
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
	bytes.write("DIRC", 0, "latin1");
	view.setUint32(4, 2);
	view.setUint32(8, ordered.length);
	let at = 12;
	for (const [n, record] of ordered.entries()) {
		const length = lengths[n] ?? 0;
		// ctime, mtime (seconds, nanoseconds), dev and ino stay zero; then the mode, uid, gid and size.
		view.setUint32(at + 24, Number.parseInt(record.mode, 8));
		// Buffer's hex writing stops at the first pair that is not hex: a short write is an id that is not one.
		if (record.id.length !== idBytes * 2 || bytes.write(record.id, at + 40, idBytes, "hex") !== idBytes)
			return `the object id of ${JSON.stringify(record.path)} is not one of this repository's`;
		view.setUint16(at + 40 + idBytes, Math.min(length, 0xfff));
		bytes.write(record.path, at + nameAt, length, "utf8");
		at += sizeOf(length);
	}
	bytes.set(new Bun.CryptoHasher(idBytes === 20 ? "sha1" : "sha256").update(bytes.subarray(0, body)).digest(), body);
	return bytes;
}

/**
 * Whether paths are in the byte order of their UTF-8 names. Below U+D800
 * JavaScript's string order is that order; a name with a character above
 * it is compared as bytes.
 */
function inByteOrder(records: readonly IndexRecord[]): boolean {
	for (let n = 1; n < records.length; n++) {
		const before = records[n - 1]?.path ?? "";
		const after = records[n]?.path ?? "";
		const ordered = WIDE.test(before) || WIDE.test(after) ? Buffer.compare(Buffer.from(before), Buffer.from(after)) < 0 : before < after;
		if (!ordered) return false;
	}
	return true;
}

const WIDE = /[\uD800-\uFFFF]/;
