import { closeSync, constants, fstatSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { quoteName } from "../text/terminal.ts";
import type { Entry } from "./expected-content.ts";
import { indexFileBytes } from "./index-file.ts";

/**
 * The private index: exactly the entries walked, never what `read-tree`
 * would read again from the store (two git processes can be answered
 * differently for one id: packs are searched most recently used first), and
 * the index decides what is untracked and which attributes apply. Written
 * in-process (index-file.ts). `holds` writes it, or checks it is still the
 * bytes written (a job can write the temp folder) and writes them again if
 * not; a string when an id is not one of the repository's, or the file
 * cannot be written. (A name git would refuse to index never gets here:
 * the walk refuses its tree, path-rules.ts.)
 */
export function privateIndex(path: string, entries: readonly Entry[], idBytes: number): { holds(): Promise<true | string> } {
	const bytes = indexFileBytes(
		entries.map((entry) => ({ path: entry.path, mode: entry.mode, id: entry.blob })),
		idBytes,
	);
	let written = false;
	return {
		// Synchronous: the index is small, and git's reads of it wait on this (each hop through the file-system threads costs more than the work).
		async holds() {
			if (typeof bytes === "string") return bytes;
			if (written && regularFileHolds(path, bytes)) return true;
			// Removed first (whatever a job left there: a link writing would follow, a folder), then made anew, never opened as found.
			written = remake(path, bytes);
			const remade = written;
			return remade || `discern could not write its private index ${quoteName(path)}`;
		},
	};
}

/**
 * Whether `path` is a regular file holding exactly `bytes`. Opened without
 * following a link and without waiting on a FIFO (a job may put either
 * there: a read would hang on a FIFO), and judged by what was opened.
 */
function regularFileHolds(path: string, bytes: Uint8Array): boolean {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch {
		return false;
	}
	try {
		const found = fstatSync(fd);
		if (!found.isFile() || found.size !== bytes.length) return false;
		// One byte more than expected is asked for: a file that grew since the stat does not hold.
		const read = Buffer.alloc(bytes.length + 1);
		let filled = 0;
		for (let got = -1; got !== 0 && filled < read.length; filled += got) got = readSync(fd, read, filled, read.length - filled, filled);
		return filled === bytes.length && read.subarray(0, filled).equals(bytes);
	} catch {
		return false;
	} finally {
		closeSync(fd);
	}
}

function remake(path: string, bytes: Uint8Array): boolean {
	try {
		rmSync(path, { recursive: true, force: true });
		writeFileSync(path, bytes, { flag: "wx", mode: 0o600 });
		return true;
	} catch {
		return false;
	}
}
