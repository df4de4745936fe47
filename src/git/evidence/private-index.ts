import { rmSync, writeFileSync } from "node:fs";
import { readRegularFile } from "../../platform/files.ts";
import { quoteName } from "../../text/terminal.ts";
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
			written = remake(path, bytes);
			return written || `discern could not write its private index ${quoteName(path)}`;
		},
	};
}

/** Whether `path` is a regular file holding exactly `bytes` (see `readRegularFile`: never through a link, never waiting on a FIFO). */
function regularFileHolds(path: string, bytes: Uint8Array): boolean {
	return readRegularFile(path, bytes.length)?.equals(bytes) ?? false;
}

/** Removed first (whatever a job left there: a link writing would follow, a folder), then made anew, never opened as found. */
function remake(path: string, bytes: Uint8Array): boolean {
	try {
		rmSync(path, { recursive: true, force: true });
		writeFileSync(path, bytes, { flag: "wx", mode: 0o600 });
		return true;
	} catch {
		return false;
	}
}
