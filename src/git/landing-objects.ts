import { lstat, readlink } from "node:fs/promises";
import { join } from "node:path";
import { quoteName } from "../text/terminal.ts";
import { blobId, hashFile, objectId } from "./blob-id.ts";
import type { ObjectReader } from "./object-reader.ts";
import { git } from "./run.ts";
import { changedBetween } from "./tree-diff.ts";

/**
 * What moving a checkout from one commit to another writes, told from
 * objects read back and hashed. git writes a checkout's files from its
 * object store without hashing what it reads there, and the gate proves a
 * worktree's files against blob ids, not the store's bytes under those ids:
 * a loose object rewritten after `done` (zlib "blob N\0…" under the proven
 * blob's id), a pack, or an `objects/info/alternates` naming another store
 * would have the landing write other bytes than were proven. The reader
 * (`git cat-file --batch`) finds objects exactly as the checkout's git will,
 * alternates and packs included; each blob it gives is hashed here.
 */

/** A file the move writes: its path, mode (regular, executable, symbolic link) and blob. */
export interface WrittenBlob {
	path: string;
	mode: string;
	id: string;
}

export type LandingBlobs =
	| { ok: true; files: WrittenBlob[] }
	/** `objects`: the blobs that do not hash to their ids (with a path each); empty when a tree could not be read (`problem` says why). */
	| { ok: false; problem: string; objects: { id: string; path: string }[] };

/** How many blobs one round on the reader asks for: a bound on the memory a landing of large files takes. */
const ROUND = 32;
const WRITTEN_MODES = new Set(["100644", "100755", "120000"]);

/**
 * Every blob moving from `from` to `to` writes (the paths the two commits
 * hold differently; only those are read), each read back and hashed to its
 * id, the trees on the way too. Submodules are not objects of this store.
 */
export async function verifiedLandingBlobs(reader: ObjectReader, from: string, to: string): Promise<LandingBlobs> {
	const changes = await changedBetween(reader, from, to);
	if (typeof changes === "string") return { ok: false, problem: changes, objects: [] };
	const files = changes.flatMap((change) =>
		change.to && change.toId && WRITTEN_MODES.has(change.to) ? [{ path: change.path, mode: change.to, id: change.toId }] : [],
	);
	const pathOf = new Map<string, string>();
	for (const file of files) if (!pathOf.has(file.id)) pathOf.set(file.id, file.path);
	const ids = [...pathOf.keys()];
	const bad: { id: string; path: string }[] = [];
	let unread: string | null = null;
	for (let at = 0; at < ids.length; at += ROUND) {
		const round = ids.slice(at, at + ROUND);
		const read = await reader.fetch(round);
		for (const [index, object] of read.entries()) {
			const id = round[index] as string;
			if (!object) unread ??= id;
			else if (object.id !== id || object.type !== "blob" || objectId("blob", object.content, id.length) !== id) bad.push({ id, path: pathOf.get(id) ?? "" });
		}
	}
	if (bad.length > 0)
		return {
			ok: false,
			problem: `the object store holds other bytes than ${bad.length === 1 ? "its id names" : "their ids name"} under ${bad
				.slice(0, 10)
				.map((object) => `blob ${object.id.slice(0, 12)} (${quoteName(object.path)})`)
				.join(", ")}${bad.length > 10 ? ` and ${bad.length - 10} more` : ""}`,
			objects: bad,
		};
	if (unread) return { ok: false, problem: `git could not read the blob ${unread.slice(0, 12)} (${quoteName(pathOf.get(unread) ?? "")})`, objects: [] };
	return { ok: true, files };
}

/**
 * The files of `checkout` that do not hold the blob the move wrote there:
 * each hashed as it is (a link's target as git records it), and one that
 * differs hashed again by git with the checkout's own conversions (line
 * endings, a filter), as `git add` would see it. Null when git could not
 * say. Read after the move: bytes the store gave git between the check and
 * the move are caught here.
 */
export async function filesNotAsWritten(checkout: string, files: readonly WrittenBlob[]): Promise<string[] | null> {
	const differ: string[] = [];
	for (const file of files) {
		const where = join(checkout, file.path);
		const found = await lstat(where).catch(() => null);
		if (!found) {
			differ.push(file.path);
			continue;
		}
		if (found.isSymbolicLink()) {
			const target = await readlink(where, { encoding: "buffer" }).catch(() => null);
			if (!target || file.mode !== "120000" || blobId(target, file.id.length) !== file.id) differ.push(file.path);
			continue;
		}
		if (!found.isFile()) {
			differ.push(file.path);
			continue;
		}
		const hashed = hashFile(where, found.size, file.id.length, false);
		if (hashed?.blob !== file.id) differ.push(file.path);
	}
	// Converted on the way out (autocrlf, eol, a smudge filter): git's own clean hashing, for the few that differ.
	const wanted = new Map(files.map((file) => [file.path, file]));
	const regular = differ.filter((path) => wanted.get(path)?.mode !== "120000");
	if (regular.length === 0) return differ;
	const fine = new Set<string>();
	for (let at = 0; at < regular.length; at += 200) {
		const chunk = regular.slice(at, at + 200);
		const present = [];
		for (const path of chunk) if ((await lstat(join(checkout, path)).catch(() => null))?.isFile()) present.push(path);
		if (present.length === 0) continue;
		const hashed = await git(["hash-object", "--", ...present], checkout);
		if (hashed.exitCode !== 0) return null;
		const ids = hashed.stdout.split("\n");
		for (const [index, path] of present.entries()) if (ids[index] === wanted.get(path)?.id) fine.add(path);
	}
	return differ.filter((path) => !fine.has(path));
}
