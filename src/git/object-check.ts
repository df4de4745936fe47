import { objectId } from "./blob-id.ts";
import type { gitBytes } from "./run.ts";

/**
 * Objects read back and hashed: git trusts its object store, and a file a
 * job (or anyone) can write there — a pack index that files a forged tree
 * under a real tree's id — would have `ls-tree` and `read-tree` show another
 * tree under the commit's name, with no replace ref or graft involved. git
 * re-hashes little of what it reads outside `fsck`; discern does, for what a
 * judgement rests on: the evidence's commit, its trees, the `.gitattributes`
 * files git reads the commit's attributes from, and the blobs it has git
 * write out or reads itself (converted files, LFS pointers); the commits of
 * an ancestry (ancestry.ts); the trees of a branch's changes (tree-diff.ts);
 * a pin's commit and root (standards/verify-commit.ts).
 */
export type RunBytes = (args: readonly string[], options?: { input?: string }) => ReturnType<typeof gitBytes>;

export interface Wanted {
	id: string;
	type: "commit" | "tree" | "blob";
}

/**
 * Null when every wanted object is there, of its type, and hashes to its
 * id; otherwise what is wrong. `commit`'s own tree line must name `tree`.
 */
export async function objectsHold(run: RunBytes, commit: string, tree: string, subtrees: readonly string[], blobs: readonly string[] = []): Promise<string | null> {
	const wanted: Wanted[] = [
		{ id: commit, type: "commit" },
		{ id: tree, type: "tree" },
		...subtrees.map((id) => ({ id, type: "tree" as const })),
		...blobs.map((id) => ({ id, type: "blob" as const })),
	];
	const read = await readObjects(run, wanted);
	if (typeof read === "string") return read;
	const first = new TextDecoder().decode((read[0] as BatchObject).content.subarray(0, 5 + tree.length + 1));
	if (first !== `tree ${tree}\n`) return `the commit ${commit.slice(0, 7)} does not name the tree git listed for it`;
	const odd = read.find((object) => object.type === "tree" && parseTreeObject(object.content, tree.length / 2) === null);
	return odd ? `the commit holds a tree git does not write (${odd.id.slice(0, 12)}: a repeated or out-of-order name, or an odd mode; \`git fsck\` names it)` : null;
}

/** The same for blobs git will write out (a converted file's checkout): null when each hashes to its id. */
export async function blobsHold(run: RunBytes, blobs: readonly string[]): Promise<string | null> {
	const read = await readBlobs(run, blobs);
	return typeof read === "string" ? read : null;
}

/** Blobs' contents, in one git process, each checked to hash to its id; else what is wrong. */
export async function readBlobs(run: RunBytes, blobs: readonly string[]): Promise<Uint8Array[] | string> {
	if (blobs.length === 0) return [];
	const read = await readObjects(run, blobs.map((id) => ({ id, type: "blob" as const })));
	return typeof read === "string" ? read : read.map((object) => object.content);
}

/** The wanted objects as git gives them, each checked to be of its type and to hash to its id; else what is wrong. */
export async function readObjects(run: RunBytes, wanted: readonly Wanted[]): Promise<BatchObject[] | string> {
	const read = await run(["cat-file", "--batch"], { input: `${wanted.map((object) => object.id).join("\n")}\n` });
	if (read.exitCode !== 0) return "git could not read the commit's objects back";
	const objects = parseBatch(read.stdout);
	if (objects === null || objects.length !== wanted.length) return "git's answer for the commit's objects could not be read";
	for (const [index, object] of objects.entries()) {
		const expected = wanted[index] as Wanted;
		if (object.id !== expected.id || object.type !== expected.type || objectId(object.type, object.content, expected.id.length) !== expected.id) {
			return `the object store holds something else under ${expected.type} ${expected.id.slice(0, 12)} than what hashes to it (\`git fsck\` names the file)`;
		}
	}
	return objects;
}

export interface BatchObject {
	id: string;
	type: string;
	content: Uint8Array;
}

/** `git cat-file --batch` output: `<id> <type> <size>\n<content>\n` each (null when it is not that, or an object is missing). */
function parseBatch(bytes: Uint8Array): BatchObject[] | null {
	const objects: BatchObject[] = [];
	const decoder = new TextDecoder();
	let at = 0;
	while (at < bytes.length) {
		const newline = bytes.indexOf(10, at);
		if (newline < 0) return null;
		const [id = "", type = "", size = ""] = decoder.decode(bytes.subarray(at, newline)).split(" ");
		const length = Number(size);
		if (type === "missing" || !Number.isInteger(length) || length < 0 || newline + 1 + length > bytes.length) return null;
		objects.push({ id, type, content: bytes.subarray(newline + 1, newline + 1 + length) });
		at = newline + 1 + length + 1;
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
export async function verifiedRoot(run: RunBytes, commit: string): Promise<VerifiedRoot | string> {
	const read = await readObjects(run, [{ id: commit, type: "commit" }]);
	if (typeof read === "string") return read;
	const header = new TextDecoder().decode((read[0] as BatchObject).content).split("\n\n")[0] ?? "";
	const lines = header.split("\n");
	const tree = lines[0]?.startsWith("tree ") ? lines[0].slice(5) : "";
	const parents = lines.filter((line) => line.startsWith("parent ")).map((line) => line.slice(7));
	if (tree === "") return `the commit ${commit.slice(0, 7)} names no tree`;
	const root = await readObjects(run, [{ id: tree, type: "tree" }]);
	if (typeof root === "string") return root;
	const entries = parseTreeObject((root[0] as BatchObject).content, tree.length / 2);
	return entries === null ? `the tree ${tree.slice(0, 7)} could not be read` : { tree, parents, entries };
}

/** The modes git writes, and nothing else (`040000`, `0120000` check out the same, yet read as something else). */
const MODES = new Set(["40000", "100644", "100755", "120000", "160000"]);
const FORBIDDEN_NAMES = new Set(["", ".", "..", ".git"]);

/**
 * A raw tree object: `<mode> <name>\0<id bytes>` per entry, exactly as git
 * writes one. Null for anything else: a mode git does not write, a name
 * that is not UTF-8 (two would read alike), empty, `.`, `..`, `.git` or
 * holding a `/`, or entries out of git's order or repeated (a second `src`
 * after the first: a checkout writes both, a map keeps one).
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
			if (!MODES.has(mode) || FORBIDDEN_NAMES.has(name) || name.includes("/")) return null;
			// git's order: by name's bytes, a folder's name as if it ended in "/"; strictly rising, so no name twice.
			const key = Buffer.concat([Buffer.from(bytes.subarray(space + 1, nul)), Buffer.from(mode === "40000" ? "/" : "")]);
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
