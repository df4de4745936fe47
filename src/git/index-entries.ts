import { join } from "node:path";
import { readRegularFile } from "../platform/files.ts";

/**
 * A checkout's index read in-process, for `status`: the paths and modes of
 * its entries and whether git's status is told to look away from any
 * (assume-unchanged), without a `git ls-files` process to start. Only the
 * plainest index is read — format version 2 (skip-worktree and
 * intent-to-add need version 3 or later), its whole trailer hash checked,
 * no split index (`link`: entries in another file) and no sparse index
 * (`sdir`) — and anything else is null: the caller asks git.
 *
 * Layout: git's Documentation/gitformat-index.txt (see index-file.ts,
 * which writes this same version).
 */
export interface IndexEntry {
	path: string;
	/** Octal, as `ls-files -s` prints it: 100644, 100755, 120000, 160000. */
	mode: string;
	/** The object id in hex. */
	blob: string;
	/** assume-unchanged or skip-worktree (which a version 2 index cannot hold): git's status does not look at the file. */
	hidden: boolean;
}

/** Larger than this, git is asked (it reads a big index faster than a parse here would). */
const MAX_BYTES = 8 * 1024 * 1024;

export function readIndexEntries(gitDir: string): IndexEntry[] | null {
	const bytes = readRegularFile(join(gitDir, "index"), MAX_BYTES);
	if (!bytes || bytes.length < 12 + 20 || bytes.toString("latin1", 0, 4) !== "DIRC") return null;
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
	if (view.getUint32(4) !== 2) return null;
	const idBytes = trailerHash(bytes);
	if (idBytes === null) return null;
	const count = view.getUint32(8);
	const end = bytes.length - idBytes;
	const entries: IndexEntry[] = [];
	let at = 12;
	for (let n = 0; n < count; n++) {
		const nameAt = at + 40 + idBytes + 2;
		if (nameAt > end) return null;
		const flags = view.getUint16(at + 40 + idBytes);
		// The extended bit has no place in version 2.
		if (flags & 0x4000) return null;
		const nul = bytes.indexOf(0, nameAt);
		if (nul < 0 || nul >= end) return null;
		const length = flags & 0xfff;
		if (length !== 0xfff && nul - nameAt !== length) return null;
		entries.push({
			path: bytes.toString("utf8", nameAt, nul),
			mode: view.getUint32(at + 24).toString(8),
			blob: bytes.toString("hex", at + 40, at + 40 + idBytes),
			hidden: (flags & 0x8000) !== 0,
		});
		// The entry, from its start, fills a multiple of 8 bytes with 1 to 8 NULs after its name.
		at += (40 + idBytes + 2 + (nul - nameAt) + 8) & ~7;
		if (at > end) return null;
	}
	// Extensions: a four-letter signature and a 32-bit size each. A split or sparse index holds entries elsewhere.
	while (at < end) {
		if (at + 8 > end) return null;
		const signature = bytes.toString("latin1", at, at + 4);
		if (signature === "link" || signature === "sdir") return null;
		at += 8 + view.getUint32(at + 4);
	}
	return at === end ? entries : null;
}

/** The id length whose hash of everything before the trailer is the trailer (20: SHA-1, 32: SHA-256); null when neither is. */
function trailerHash(bytes: Buffer): number | null {
	for (const [size, algorithm] of [
		[20, "sha1"],
		[32, "sha256"],
	] as const) {
		if (bytes.length < 12 + size) continue;
		const digest = new Bun.CryptoHasher(algorithm).update(bytes.subarray(0, bytes.length - size)).digest();
		if (digest.equals(bytes.subarray(bytes.length - size))) return size;
	}
	return null;
}
