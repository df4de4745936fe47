/** git's object id for a blob of `bytes`, in the repository's hash (40 hex digits: SHA-1, 64: SHA-256). */
export function blobId(bytes: Uint8Array, hexLength: number): string {
	const hasher = new Bun.CryptoHasher(hexLength === 64 ? "sha256" : "sha1");
	hasher.update(`blob ${bytes.byteLength}\0`);
	hasher.update(bytes);
	return hasher.digest("hex");
}
