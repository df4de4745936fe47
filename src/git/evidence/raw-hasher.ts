import { lstat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Captured } from "../../platform/process.ts";
import { hashFile } from "../blob-id.ts";
import type { RawHasher } from "./file-check.ts";

/**
 * The blob ids of many files' raw bytes, on every core (issue 23): a first
 * look at a large tree is mostly reading and hashing, which one thread does
 * one file after another. `git hash-object --no-filters --stdin-paths` reads
 * and hashes the bytes as they are — no attribute, filter or line-ending
 * setting applies — so a few of them, each given a share of the paths, hash
 * on all cores while this process waits. A share git could not hash whole (a
 * file gone or unreadable meanwhile) is read here instead, file by file, so
 * that one missing file is a deleted file, not a look that failed.
 *
 * `run`: git with the evidence's repository, folders and pinned settings.
 */
export function rawHasher(
	root: string,
	hexLength: number,
	run: (args: readonly string[], options: { input?: string; viaFiles?: boolean }) => Promise<Captured>,
): RawHasher {
	return async (paths) => {
		const shares = split(paths, Math.max(1, Math.min(4, availableParallelism())));
		const answers = await Promise.all(
			shares.map(async (share) => {
				const hashed = await run(["hash-object", "--no-filters", "--stdin-paths"], {
					input: `${share.join("\n")}\n`,
					// A line per file: read back whole from a file, not a pipe's event per line.
					viaFiles: true,
				});
				const ids = hashed.exitCode === 0 ? hashed.stdout.split("\n").slice(0, -1) : [];
				return ids.length === share.length && ids.every((id) => id.length === hexLength) ? ids : readHere(root, share, hexLength);
			}),
		);
		const found = new Map<string, string>();
		shares.forEach((share, n) => {
			const ids = answers[n] ?? [];
			share.forEach((path, i) => {
				const id = ids[i];
				if (id) found.set(path, id);
			});
		});
		return found;
	};
}

/** Contiguous shares, as even as they come. */
function split<T>(items: readonly T[], count: number): T[][] {
	const size = Math.ceil(items.length / count);
	const shares: T[][] = [];
	for (let start = 0; start < items.length; start += size) shares.push(items.slice(start, start + size));
	return shares;
}

/** Each file read and hashed here; "" for one that cannot be (it then differs from any blob). */
async function readHere(root: string, paths: readonly string[], hexLength: number): Promise<string[]> {
	const ids: string[] = [];
	for (const path of paths) {
		const found = await lstat(join(root, path)).catch(() => null);
		const digests = found?.isFile() ? await hashFile(join(root, path), found.size, hexLength, false) : null;
		ids.push(digests?.blob ?? "");
	}
	return ids;
}
