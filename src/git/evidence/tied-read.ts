import { closeSync, constants, openSync } from "node:fs";
import { hashOpenFile } from "../blob-id.ts";
import type { ChangedPath } from "../status.ts";
import { fstatKey, modeOfKey, sizeOfKey } from "./stat-key.ts";

/**
 * A file's blob id (and sha256 when asked), read from the file opened, not
 * from whatever its path names a moment later: opened without following a
 * final link (nor blocking on a FIFO), it must be a regular file whose stat,
 * before and after the read, is `expected` (the look's own lstat of the
 * path). Otherwise it changed while it was looked at (the file, or a folder
 * on its way, swapped; a write), and is "modified"; a change of kind or a
 * file gone is said as such.
 *
 * Synchronous, one system call after another: in a worker (hash-worker.ts)
 * that is what keeps a core busy; in the main thread it is kept to a few
 * small files (file-check.ts).
 */
export function hashTied(path: string, expected: string | undefined, hexLength: number, withSha256: boolean): TiedRead {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === "ENOENT" || code === "ENOTDIR" ? "deleted" : code === "ELOOP" ? "type_changed" : "unreadable";
	}
	try {
		const before = fstatKey(fd);
		const mode = modeOfKey(before ?? undefined);
		if (before === null || mode === null) return "unreadable";
		if ((mode & 0o170000) !== 0o100000) return "type_changed";
		if (before !== expected) return "modified";
		const size = sizeOfKey(before) ?? -1;
		const { blob, sha256, read } = hashOpenFile(fd, size, hexLength, withSha256);
		// A file that grew or shrank while it was read, or whose stat moved, is not the file that was stat'ed.
		if (read !== size || fstatKey(fd) !== expected) return "modified";
		return { blob, sha256 };
	} catch {
		return "unreadable";
	} finally {
		closeSync(fd);
	}
}

export type TiedRead = { blob: string; sha256: string } | ChangedPath["kind"];
