import { closeSync, openSync, readSync } from "node:fs";

/** git's object id for a blob of `bytes`, in the repository's hash (40 hex digits: SHA-1, 64: SHA-256). */
export function blobId(bytes: Uint8Array, hexLength: number): string {
	return objectId("blob", bytes, hexLength);
}

/** git's object id for an object of `type` (blob, tree, commit, tag) holding `bytes`. */
export function objectId(type: string, bytes: Uint8Array, hexLength: number): string {
	const hasher = new Bun.CryptoHasher(hexLength === 64 ? "sha256" : "sha1");
	hasher.update(`${type} ${bytes.byteLength}\0`);
	hasher.update(bytes);
	return hasher.digest("hex");
}

/** Read at most this much at a time: memory stays flat whatever a file's size. */
const CHUNK_BYTES = 256 * 1024;

/**
 * The blob id (and sha256 when asked) of an open file's bytes, read from
 * its start in chunks. `read`: how many bytes there were, at most one more
 * than `size` (a file that grew is not read further): a count other than
 * `size` means it is not the file that was stat'ed.
 */
export function hashOpenFile(fd: number, size: number, hexLength: number, withSha256: boolean): { blob: string; sha256: string; read: number } {
	const blob = new Bun.CryptoHasher(hexLength === 64 ? "sha256" : "sha1").update(`blob ${size}\0`);
	const sha256 = withSha256 ? new Bun.CryptoHasher("sha256") : null;
	let read = 0;
	while (read <= size) {
		// One byte more than `size` asked for in all: a read that comes back short is the file's end (a regular file's read
		// is short only there), so a file of one chunk takes one read.
		const wanted = Math.min(chunk.length, size + 1 - read);
		const bytesRead = readSync(fd, chunk, 0, wanted, read);
		if (bytesRead > 0) {
			const bytes = chunk.subarray(0, bytesRead);
			blob.update(bytes);
			sha256?.update(bytes);
			read += bytesRead;
		}
		if (bytesRead < wanted) break;
	}
	return { blob: blob.digest("hex"), sha256: sha256 ? sha256.digest("hex") : "", read };
}

/** The one buffer reads go through, on this thread (each worker has its own): hashing is synchronous, a read at a time. */
const chunk = Buffer.allocUnsafe(CHUNK_BYTES + 1);

/** A file's blob id (and sha256 when asked); null when it cannot be read, or is not `size` bytes. */
export function hashFile(path: string, size: number, hexLength: number, withSha256: boolean): { blob: string; sha256: string } | null {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		return null;
	}
	try {
		const { blob, sha256, read } = hashOpenFile(fd, size, hexLength, withSha256);
		return read === size ? { blob, sha256 } : null;
	} catch {
		return null;
	} finally {
		closeSync(fd);
	}
}
