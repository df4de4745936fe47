import { FOLDER, parseTreeObject, readBlobs, readObjects, type VerifiedRoot } from "./object-check.ts";
import type { ObjectReader } from "./object-reader.ts";

/**
 * The bytes of a regular file at `path` in a commit whose root was read
 * back and hashed (object-check.ts), every tree on the way and the blob
 * hashed too: what the commit holds there, not what an object store a job
 * wrote to files under its ids. Null when nothing regular is there (absent,
 * a folder, a link, a submodule), the blob is larger than `maxBytes`, or
 * git could not read it: callers treat null as "nothing more to read".
 */
export async function readCommittedFile(reader: ObjectReader, root: VerifiedRoot, path: string, maxBytes: number): Promise<Uint8Array | null> {
	const segments = path.split("/");
	let entries = root.entries;
	for (const [index, name] of segments.entries()) {
		const entry = entries.get(name);
		if (!entry) return null;
		if (index === segments.length - 1) {
			if (entry.mode !== "100644" && entry.mode !== "100755") return null;
			const read = await readBlobs(reader, [entry.id]);
			const bytes = typeof read === "string" ? null : (read[0] ?? null);
			return bytes && bytes.length <= maxBytes ? bytes : null;
		}
		if (entry.mode !== FOLDER) return null;
		const tree = await readObjects(reader, [{ id: entry.id, type: "tree" }]);
		if (typeof tree === "string") return null;
		const parsed = parseTreeObject(tree[0]?.content ?? new Uint8Array(), root.tree.length / 2);
		if (!parsed) return null;
		entries = parsed;
	}
	return null;
}
