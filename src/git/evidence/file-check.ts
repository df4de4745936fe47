import { lstat, readlink, rm } from "node:fs/promises";
import { join } from "node:path";
import { mapBounded } from "../../platform/bounded.ts";
import type { Captured } from "../../platform/process.ts";
import { blobId, hashFile, sameBytes } from "../blob-id.ts";
import type { ChangedPath } from "../status.ts";
import type { Entry, LfsPointer } from "./expected-content.ts";
import { statKey } from "./known-content.ts";

/**
 * The evidence's reading of the files themselves (evidence.ts): every path
 * of the commit checked for its kind, executable bit and content against
 * the commit, and the stat each was verified at, so that a later look
 * reads again only what changed since.
 */

/** Write converted files out as a checkout would, into `folder`; a string when their blobs cannot be read back as hashed. */
export type Checkout = (files: readonly Entry[], folder: string) => Promise<Captured | string>;

/**
 * The files among `entries` whose kind, executable bit or content differ
 * from the commit, with what happened to them; null when git could not
 * write a converted file's checkout. Content is read as a stream, a few
 * files at a time: memory stays flat whatever a file's size.
 */
export async function verify(
	root: string,
	entries: readonly Entry[],
	pointers: Map<string, LfsPointer>,
	checkout: Checkout,
	scratch: string,
): Promise<Map<string, ChangedPath["kind"]> | null> {
	const differing = new Map<string, ChangedPath["kind"]>();
	const converted: Entry[] = [];
	const folders = new Map<string, Promise<boolean>>();
	await mapBounded(entries, READERS, async (entry) => {
		const path = join(root, entry.path);
		// A folder on the way replaced by a symbolic link would have the path read somewhere else entirely.
		if (!(await realFolders(root, entry.path, folders))) return void differing.set(entry.path, "type_changed");
		const found = await lstat(path).catch(() => null);
		if (!found) return void differing.set(entry.path, "deleted");
		if (entry.mode === "120000") {
			if (!found.isSymbolicLink()) return void differing.set(entry.path, "type_changed");
			const target = await readlink(path, { encoding: "buffer" }).catch(() => null);
			if (!target || blobId(target, entry.blob.length) !== entry.blob) differing.set(entry.path, "modified");
			return;
		}
		if (!found.isFile()) return void differing.set(entry.path, "type_changed");
		// git records a file as executable when its owner may execute it.
		if ((entry.mode === "100755") !== ((found.mode & 0o100) !== 0)) return void differing.set(entry.path, "modified");
		const digests = await hashFile(path, found.size, entry.blob.length, pointers.has(entry.path));
		if (!digests) return void differing.set(entry.path, "unreadable");
		// A converted file must hold what a checkout writes (CRLF, an expanded $Id$, UTF-16), not merely the blob's bytes.
		if (digests.blob === entry.blob && entry.check !== "converted") return;
		const pointer = pointers.get(entry.path);
		if (pointer) {
			if (digests.sha256 !== pointer.oid || found.size !== pointer.size) differing.set(entry.path, "modified");
			return;
		}
		if (entry.check === "converted") converted.push(entry);
		else differing.set(entry.path, "modified");
	});
	if (converted.length > 0) {
		// What a checkout would write, with the commit's attributes and pinned settings (filters other
		// than LFS were refused): then the bytes must be exactly those, not merely clean to the blob.
		// It writes them from a private store of blobs read back and hashed: a forged one would be written and matched.
		const folder = join(scratch, "checkout");
		await rm(folder, { recursive: true, force: true });
		const written = await checkout(converted, folder);
		if (typeof written === "string" || written.exitCode !== 0) return null;
		await mapBounded(converted, READERS, async (entry) => {
			if (!(await sameBytes(join(root, entry.path), join(folder, entry.path)))) differing.set(entry.path, "modified");
		});
		await rm(folder, { recursive: true, force: true });
	}
	return differing;
}

/** Is every folder on the way to `path` a real folder (no symbolic link, no file), as in the commit? Each asked once per look. */
async function realFolders(root: string, path: string, asked: Map<string, Promise<boolean>>): Promise<boolean> {
	for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) {
		const folder = path.slice(0, slash);
		let answer = asked.get(folder);
		if (!answer) {
			answer = lstat(join(root, folder)).then(
				(found) => found.isDirectory(),
				() => false,
			);
			asked.set(folder, answer);
		}
		if (!(await answer)) return false;
	}
	return true;
}

/** Files read at once: enough to keep the disk busy, few enough to keep memory flat. */
const READERS = 8;

/** The full fingerprint of every tracked file (known-content.ts), by path ("absent" when gone). */
export async function fingerprint(root: string, entries: readonly Entry[]): Promise<Map<string, string>> {
	const stats = await Promise.all(
		entries.map(async (entry) => {
			const found = await lstat(join(root, entry.path), { bigint: true }).catch(() => null);
			return [entry.path, found ? statKey(found) : "absent"] as const;
		}),
	);
	return new Map(stats);
}

/** The tracked folders (not the root) that are no longer real folders: a link or a file where the commit has a folder. */
export async function foldersReplaced(root: string, folders: ReadonlySet<string>): Promise<string[]> {
	const replaced: string[] = [];
	await mapBounded([...folders], READERS, async (folder) => {
		if (folder === "") return;
		const found = await lstat(join(root, folder)).catch(() => null);
		if (found && !found.isDirectory()) replaced.push(folder);
	});
	return replaced;
}
