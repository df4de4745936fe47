import { FOLDER, parseTreeObject, readBlobs, readObjects, type VerifiedRoot } from "./object-check.ts";
import type { ObjectReader } from "./object-reader.ts";

/** A file's bytes, or a symbolic link's target (its blob, as text). */
export type CommittedFile = { kind: "file"; bytes: Uint8Array } | { kind: "link"; target: string };

/**
 * The bytes of a regular file (or the target of a symbolic link) at `path`
 * in a commit whose root was read back and hashed (object-check.ts), every
 * tree on the way and the blob hashed too: what the commit holds there, not
 * what an object store a job wrote to files under its ids. Null when
 * nothing of the kind is there (absent, a folder, a submodule), the blob is
 * larger than `maxBytes`, or git could not read it: callers treat null as
 * "nothing more to read". A folder on the way that is a link is not followed.
 */
export async function readCommittedFile(reader: ObjectReader, root: VerifiedRoot, path: string, maxBytes: number): Promise<CommittedFile | null> {
	const segments = path.split("/");
	let entries = root.entries;
	for (const [index, name] of segments.entries()) {
		const entry = entries.get(name);
		if (!entry) return null;
		if (index === segments.length - 1) {
			const link = entry.mode === "120000";
			if (entry.mode !== "100644" && entry.mode !== "100755" && !link) return null;
			const read = await readBlobs(reader, [entry.id]);
			const bytes = typeof read === "string" ? null : (read[0] ?? null);
			if (!bytes || bytes.length > maxBytes) return null;
			return link ? { kind: "link", target: new TextDecoder().decode(bytes) } : { kind: "file", bytes };
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
