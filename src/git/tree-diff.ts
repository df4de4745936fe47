import { provenAncestor } from "./ancestry.ts";
import { FOLDER, parseTreeObject, readObjects, verifiedRoot } from "./object-check.ts";
import { type ObjectReader, withObjectReader } from "./object-reader.ts";

/** One path two commits hold differently, with its mode and object id on each side (null: absent). */
export interface TreeChange {
	path: string;
	from: string | null;
	to: string | null;
	fromId: string | null;
	toId: string | null;
}

type Entries = Map<string, { mode: string; id: string }>;
/** One side of a pair of trees to compare: entries already read, a tree id to read, or nothing there. */
type Side = Entries | string | null;

/**
 * What a branch changes since it left the trunk, read from objects read back
 * and hashed: git's own diff descends into trees it never re-hashes, so an
 * object store a job wrote to could file the branch's `src/` under the
 * trunk's id and hide the change from the scopes and the consent. Told
 * only against a trunk the branch provably contains: any other base (a merge
 * base of a criss-cross history, one a forged parent suggests) can leave a
 * path out. A string says why it cannot be told (callers fail open).
 */
export async function committedChanges(
	root: string,
	trunk: string,
	head: string,
	given: { reader?: ObjectReader; contained?: () => Promise<boolean | null> } = {},
): Promise<TreeChange[] | string> {
	return withObjectReader(root, given.reader, async (reader) => {
		const contained = await (given.contained ? given.contained() : provenAncestor(root, trunk, head, reader));
		if (contained !== true) return "this branch does not contain the trunk (or that could not be proved), so what it changes cannot be told exactly";
		return changedBetween(reader, trunk, head);
	});
}

/** The paths two commits hold differently, walking only trees whose ids differ, each tree read back and hashed. */
export async function changedBetween(reader: ObjectReader, fromCommit: string, toCommit: string): Promise<TreeChange[] | string> {
	const [from, to] = await Promise.all([verifiedRoot(reader, fromCommit), verifiedRoot(reader, toCommit)]);
	if (typeof from === "string") return from;
	if (typeof to === "string") return to;
	const changes: TreeChange[] = [];
	const idBytes = to.tree.length / 2;
	// Pairs of trees still to compare, level by level: one round on the reader per level reads them all.
	let level: { prefix: string; from: Side; to: Side }[] = [{ prefix: "", from: from.entries, to: to.entries }];
	while (level.length > 0) {
		const ids = [...new Set(level.flatMap((pair) => [pair.from, pair.to].filter((side): side is string => typeof side === "string")))];
		const read =
			ids.length > 0
				? await readObjects(
						reader,
						ids.map((id) => ({ id, type: "tree" as const })),
					)
				: [];
		if (typeof read === "string") return read;
		const trees = new Map<string, Entries>();
		for (const object of read) {
			const entries = parseTreeObject(object.content, idBytes);
			if (!entries) return `the tree ${object.id.slice(0, 7)} could not be read`;
			trees.set(object.id, entries);
		}
		const entriesOf = (side: Side): Entries => (side === null ? new Map() : typeof side === "string" ? (trees.get(side) ?? new Map()) : side);
		const next: typeof level = [];
		for (const pair of level) {
			const [a, b] = [entriesOf(pair.from), entriesOf(pair.to)];
			for (const name of new Set([...a.keys(), ...b.keys()])) {
				const [x, y] = [a.get(name), b.get(name)];
				if (x && y && x.mode === y.mode && x.id === y.id) continue;
				const path = `${pair.prefix}${name}`;
				const [xFolder, yFolder] = [x?.mode === FOLDER, y?.mode === FOLDER];
				if (xFolder || yFolder) next.push({ prefix: `${path}/`, from: xFolder ? (x?.id ?? null) : null, to: yFolder ? (y?.id ?? null) : null });
				// A file on one side and a folder on the other: the file's change too.
				if ((x && !xFolder) || (y && !yFolder)) {
					const [before, after] = [x && !xFolder ? x : null, y && !yFolder ? y : null];
					changes.push({ path, from: before?.mode ?? null, to: after?.mode ?? null, fromId: before?.id ?? null, toId: after?.id ?? null });
				}
			}
		}
		level = next;
	}
	return changes.sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0));
}
