import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";

/** The sha256 of a regular file's bytes; null for none (gone, a folder, a symlink: never followed). */
export async function fileHash(path: string): Promise<string | null> {
	const found = await lstat(path).catch(() => null);
	if (!found?.isFile()) return null;
	const bytes = await readFile(path).catch(() => null);
	return bytes ? createHash("sha256").update(bytes).digest("hex") : null;
}
