import { createReadStream } from "node:fs";

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

/** Files up to this size are read whole (with READERS at once, a few MB of memory at most). */
const WHOLE_READ_BYTES = 256 * 1024;

/** A file's blob id (and sha256 when asked), streamed; null when it cannot be read. */
export async function hashFile(path: string, size: number, hexLength: number, withSha256: boolean): Promise<{ blob: string; sha256: string } | null> {
	const blob = new Bun.CryptoHasher(hexLength === 64 ? "sha256" : "sha1").update(`blob ${size}\0`);
	const sha256 = withSha256 ? new Bun.CryptoHasher("sha256") : null;
	let read = 0;
	try {
		if (size <= WHOLE_READ_BYTES) {
			// A small file in one read (setting up a stream costs more than reading it); one byte more than
			// stat'ed tells a file that grew meanwhile, without reading whatever it grew to.
			const bytes = await Bun.file(path)
				.slice(0, size + 1)
				.bytes();
			read = bytes.byteLength;
			blob.update(bytes);
			sha256?.update(bytes);
		} else {
			for await (const chunk of createReadStream(path)) {
				const bytes = chunk as Buffer;
				read += bytes.byteLength;
				blob.update(bytes);
				sha256?.update(bytes);
			}
		}
	} catch {
		return null;
	}
	// A file that changed size while it was read is not the file that was stat'ed: never a match.
	if (read !== size) return { blob: "", sha256: "" };
	return { blob: blob.digest("hex"), sha256: sha256 ? sha256.digest("hex") : "" };
}
