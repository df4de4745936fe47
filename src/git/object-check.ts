import { objectId } from "./blob-id.ts";
import { refusedByFsck, refusedLinkFolder, refusedName } from "./evidence/path-rules.ts";
import type { ObjectReader, RawObject } from "./object-reader.ts";

/**
 * Objects read back and hashed: git trusts its object store, and a file a
 * job (or anyone) can write there — a pack index that files a forged tree
 * under a real tree's id — would have `ls-tree` and `read-tree` show another
 * tree under the commit's name, with no replace ref or graft involved. git
 * re-hashes little of what it reads outside `fsck`; discern does, for what a
 * judgement rests on: the evidence's commit, its trees, the `.gitattributes`
 * files git reads the commit's attributes from, and the blobs it has git
 * write out or reads itself (converted files, LFS pointers); the trunk's
 * commit, root and discern.toml (proof/committed-config.ts); the commits of
 * an ancestry (ancestry.ts); the trees of a branch's changes (tree-diff.ts);
 * a pin's commit and root (verbs/standards/verify-commit.ts).
 */
export interface Wanted {
	id: string;
	type: "commit" | "tree" | "blob";
}

/** Blobs' contents, in one round on the reader, each checked to hash to its id; else what is wrong. */
export async function readBlobs(reader: ObjectReader, blobs: readonly string[]): Promise<Uint8Array[] | string> {
	if (blobs.length === 0) return [];
	const read = await readObjects(
		reader,
		blobs.map((id) => ({ id, type: "blob" as const })),
	);
	return typeof read === "string" ? read : read.map((object) => object.content);
}

/** The wanted objects as git gives them, each checked to be of its type and to hash to its id; else what is wrong. */
export async function readObjects(reader: ObjectReader, wanted: readonly Wanted[]): Promise<RawObject[] | string> {
	const read = await reader.fetch(wanted.map((object) => object.id));
	const objects: RawObject[] = [];
	for (const [index, object] of read.entries()) {
		const expected = wanted[index] as Wanted;
		if (!object) return `git could not read the ${expected.type} ${expected.id.slice(0, 12)}`;
		if (object.id !== expected.id || object.type !== expected.type || objectId(object.type, object.content, expected.id.length) !== expected.id) {
			return `the object store holds something else under ${expected.type} ${expected.id.slice(0, 12)} than what hashes to it (\`git fsck\` names the file)`;
		}
		objects.push(object);
	}
	return objects;
}

/** A commit read back and hashed, with its root tree's entries (each a name, mode and object id). */
export interface VerifiedRoot {
	tree: string;
	parents: string[];
	entries: Map<string, { mode: string; id: string }>;
}

/** The commit and its root tree as they hash to their ids, parsed; else what is wrong. */
export async function verifiedRoot(reader: ObjectReader, commit: string): Promise<VerifiedRoot | string> {
	const read = await readObjects(reader, [{ id: commit, type: "commit" }]);
	if (typeof read === "string") return read;
	const header = new TextDecoder().decode((read[0] as RawObject).content).split("\n\n")[0] ?? "";
	const lines = header.split("\n");
	const tree = lines[0]?.startsWith("tree ") ? lines[0].slice(5) : "";
	const parents = lines.filter((line) => line.startsWith("parent ")).map((line) => line.slice(7));
	if (tree === "") return `the commit ${commit.slice(0, 7)} names no tree`;
	const root = await readObjects(reader, [{ id: tree, type: "tree" }]);
	if (typeof root === "string") return root;
	const entries = parseTreeObject((root[0] as RawObject).content, tree.length / 2);
	return entries === null ? oddTree(tree) : { tree, parents, entries };
}

/** One file, symbolic link or submodule of a commit: its path, its mode as the tree records it, and its object. */
export interface TreeRecord {
	path: string;
	mode: string;
	id: string;
}

/**
 * A folder of a walked tree: its path, its tree's id, and where the records
 * below it sit in the walk's list (`start`, `count`: a folder's records are
 * one run of the list, as a depth-first walk lists them).
 */
export interface FolderRecord {
	path: string;
	id: string;
	start: number;
	count: number;
}

/** A walk's result: the commit's root tree, every record, and every folder, in walk order. */
export interface WalkedTree {
	tree: string;
	records: TreeRecord[];
	folders: FolderRecord[];
}

/**
 * Subtrees an earlier walk read and hashed: for the folder at `path` whose
 * tree is `id`, the records below it and its own folders (their `start`
 * counted from its first record), as that walk listed them; undefined when
 * it walked no such tree there. A tree's id fixes everything below it.
 */
export type WalkedBefore = (path: string, id: string) => { records: readonly TreeRecord[]; folders: readonly FolderRecord[] } | undefined;

/** The subtrees of an earlier walk, for a walk of another commit's tree to take instead of reading them again (see `WalkedBefore`). */
export function subtreesOf(tree: { records: readonly TreeRecord[]; folders: readonly FolderRecord[] }): WalkedBefore {
	let byPath: Map<string, number> | undefined;
	return (path, id) => {
		byPath ??= new Map(tree.folders.map((folder, n) => [folder.path, n]));
		const at = byPath.get(path);
		const folder = at === undefined ? undefined : tree.folders[at];
		if (at === undefined || !folder || folder.id !== id) return undefined;
		// Its own folders follow it in walk order, each a path below it.
		const inner: FolderRecord[] = [];
		for (let n = at + 1; n < tree.folders.length; n++) {
			const below = tree.folders[n] as FolderRecord;
			if (!below.path.startsWith(`${path}/`)) break;
			inner.push({ ...below, start: below.start - folder.start });
		}
		return { records: tree.records.slice(folder.start, folder.start + folder.count), folders: inner };
	};
}

/**
 * Everything a commit's tree holds (folders walked, not listed), from
 * objects read back and hashed and trees read as git writes them: what
 * `git ls-tree -r` would list, in its order, without believing the store.
 * Trees are read a level at a time, each level one round on the reader.
 * `before`: subtrees an earlier walk read (see `WalkedBefore`), taken as it
 * listed them instead of being read again: after a commit that changed a
 * few files, only the trees on their way are read.
 */
export async function verifiedTree(reader: ObjectReader, commit: string, before?: WalkedBefore): Promise<WalkedTree | string> {
	const root = await verifiedRoot(reader, commit);
	if (typeof root === "string") return root;
	type Entries = Map<string, { mode: string; id: string }>;
	const trees = new Map<string, Entries>([[root.tree, root.entries]]);
	const reused = new Map<string, NonNullable<ReturnType<WalkedBefore>>>();
	let level: { prefix: string; entries: Entries }[] = [{ prefix: "", entries: root.entries }];
	while (level.length > 0) {
		// Every folder of this level, by path: taken from the earlier walk, known already (a tree met twice), or to read.
		const pending: { path: string; id: string }[] = [];
		for (const { prefix, entries } of level) {
			for (const [name, entry] of entries) {
				if (entry.mode !== FOLDER) continue;
				const path = `${prefix}${name}`;
				const earlier = before?.(path, entry.id);
				if (earlier) reused.set(path, earlier);
				else pending.push({ path, id: entry.id });
			}
		}
		const below = [...new Set(pending.map((folder) => folder.id).filter((id) => !trees.has(id)))];
		const read = await readObjects(
			reader,
			below.map((id) => ({ id, type: "tree" as const })),
		);
		if (typeof read === "string") return read;
		for (const object of read) {
			const entries = parseTreeObject(object.content, root.tree.length / 2);
			if (!entries) return oddTree(object.id);
			trees.set(object.id, entries);
		}
		level = pending.map((folder) => ({ prefix: `${folder.path}/`, entries: trees.get(folder.id) ?? new Map() }));
	}
	const records: TreeRecord[] = [];
	const folders: FolderRecord[] = [];
	const walk = (entries: Entries, prefix: string) => {
		for (const [name, entry] of entries) {
			if (entry.mode !== FOLDER) {
				records.push({ path: `${prefix}${name}`, mode: entry.mode, id: entry.id });
				continue;
			}
			const path = `${prefix}${name}`;
			const folder: FolderRecord = { path, id: entry.id, start: records.length, count: 0 };
			folders.push(folder);
			const earlier = reused.get(path);
			if (earlier) {
				for (const inner of earlier.folders) folders.push({ ...inner, start: inner.start + folder.start });
				for (const record of earlier.records) records.push(record);
			} else walk(trees.get(entry.id) ?? new Map(), `${path}/`);
			folder.count = records.length - folder.start;
		}
	};
	walk(root.entries, "");
	// git checks every folder on a symbolic link's path as the link: none may read as .gitmodules.
	const badLink = records.find((record) => record.mode === "120000" && record.path.split("/").slice(0, -1).some(refusedLinkFolder));
	if (badLink)
		return `the commit holds a symbolic link git would not check out (${JSON.stringify(badLink.path)}: a folder on its way reads as .gitmodules on some disk)`;
	// What the commit under judgement may not hold though git reads it (the trunk's trees are read all the same: a branch may mend them).
	for (const entries of trees.values()) {
		for (const [name, entry] of entries) {
			if (refusedByFsck(name, entry.mode))
				return `the commit holds a ${entry.mode === FOLDER ? "folder" : "submodule"} named as a file of git's settings (${JSON.stringify(name)}): git's fsck rejects such a commit, as does a host that checks what is pushed`;
		}
	}
	return { tree: root.tree, records, folders };
}

/** A folder's mode, as a tree object records it. */
export const FOLDER = "40000";

function oddTree(id: string): string {
	return `the commit holds a tree git does not write or would not check out (${id.slice(0, 12)}: a name that is not UTF-8, repeated or out of order, an odd mode, or a name some disk reads as .git, or as .gitmodules for a link)`;
}

/** The modes git writes, and nothing else (`040000`, `0120000` check out the same, yet read as something else). */
const MODES = new Set(["40000", "100644", "100755", "120000", "160000"]);
const FORBIDDEN_NAMES = new Set(["", ".", "..", ".git"]);

/**
 * A raw tree object: `<mode> <name>\0<id bytes>` per entry, exactly as git
 * writes one. Null for anything else: a mode git does not write, a name
 * that is not UTF-8 (two would read alike), empty, `.`, `..`, holding a
 * `/`, or one git refuses to check out (path-rules.ts: `.git` as some disk
 * would read it, a symbolic link named as `.gitmodules`), or entries out
 * of git's order or repeated (a second `src` after the first: a checkout
 * writes both, a map keeps one).
 */
export function parseTreeObject(bytes: Uint8Array, idBytes: number): Map<string, { mode: string; id: string }> | null {
	const entries = new Map<string, { mode: string; id: string }>();
	// ignoreBOM: a name's leading U+FEFF is part of it (the default drops it, and `\uFEFFsrc` would read as `src`).
	const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
	let previous: Buffer | null = null;
	let at = 0;
	try {
		while (at < bytes.length) {
			const space = bytes.indexOf(32, at);
			const nul = space < 0 ? -1 : bytes.indexOf(0, space);
			if (space < 0 || nul < 0 || nul + 1 + idBytes > bytes.length) return null;
			const mode = decoder.decode(bytes.subarray(at, space));
			const name = decoder.decode(bytes.subarray(space + 1, nul));
			if (!MODES.has(mode) || FORBIDDEN_NAMES.has(name) || name.includes("/") || refusedName(name, mode)) return null;
			// git's order: by name's bytes, a folder's name as if it ended in "/"; strictly rising, so no name twice.
			const key = Buffer.concat([Buffer.from(bytes.subarray(space + 1, nul)), Buffer.from(mode === FOLDER ? "/" : "")]);
			if (previous && Buffer.compare(previous, key) >= 0) return null;
			// A file and a folder of one name sort apart (`src`, `src/`), yet are one path: never two entries for a name.
			if (entries.has(name)) return null;
			previous = key;
			entries.set(name, { mode, id: Buffer.from(bytes.subarray(nul + 1, nul + 1 + idBytes)).toString("hex") });
			at = nul + 1 + idBytes;
		}
	} catch {
		return null;
	}
	return entries;
}
