import { readBlobs } from "../git/object-check.ts";
import type { ObjectReader } from "../git/object-reader.ts";
import type { TreeChange } from "../git/tree-diff.ts";
import { steersAgents } from "../scopes/steering.ts";
import { lineChanges } from "../text/line-changes.ts";
import { steeringReach } from "./steering-reach.ts";

/** A changed file that steers agents, and what changed in it (bounded: see the limits below). */
export interface SteeringChange {
	path: string;
	/** What reads it, in a few words. */
	readBy: string;
	change: "added" | "deleted" | "modified";
	/** Its changed lines, `- ` removed and `+ ` added, the first few. */
	lines: string[];
	/** How many lines changed in all. */
	total: number;
	/** Why its lines are not shown, when they are not. */
	unshown: string | null;
}

/** Steering files shown with their lines, and lines shown for each: the consent summary stays readable. */
export const STEERING_SHOWN = 4;
const STEERING_LINES = 8;
/** A blob larger than this is named, not compared line by line. */
const STEERING_BYTES = 1 << 20;

/**
 * The changed files that steer agents (scopes/steering.ts), each with its
 * changed lines read from hashed blobs — the first few files, a few lines
 * each. A rename is a deletion and an addition: both paths are asked about.
 * Besides the list and `sources`, a file a steering file names on either
 * side (an `@docs/style.md` import, a link's target, a hook's script: see
 * proof/steering-reach.ts) steers the agent that follows it, as much as
 * the file that names it.
 */
export async function steeringChanges(
	reader: ObjectReader,
	commits: readonly string[],
	changes: readonly TreeChange[],
	sources: readonly string[],
): Promise<SteeringChange[]> {
	const found: SteeringChange[] = [];
	for (const { change, readBy, kind } of await steeringPaths(reader, commits, changes, sources)) {
		const entry: SteeringChange = { path: change.path, readBy, change: kind, lines: [], total: 0, unshown: null };
		entry.unshown = found.length < STEERING_SHOWN ? await readLines(reader, change, entry) : `only the first ${STEERING_SHOWN} are shown line by line`;
		found.push(entry);
	}
	return found;
}

/**
 * The changes that steer agents, what reads each and how it changed, without
 * their lines: what a Proof's judgement names. When what steering files
 * name could not all be followed (proof/steering-reach.ts), every other
 * change may steer an agent too, and is named so: never silently short.
 */
export async function steeringPaths(
	reader: ObjectReader,
	commits: readonly string[],
	changes: readonly TreeChange[],
	sources: readonly string[],
): Promise<{ change: TreeChange; readBy: string; kind: SteeringChange["change"] }[]> {
	// Nothing changed, nothing to judge: the reach reads both whole trees.
	if (changes.length === 0) return [];
	const { reached, incomplete } = await steeringReach(reader, commits, sources);
	return changes.flatMap((change) => {
		const readBy =
			steersAgents(change.path, sources, reached) ??
			(incomplete === null ? null : `perhaps read by agents: discern stopped following what steering files name (${incomplete})`);
		return readBy === null ? [] : [{ change, readBy, kind: change.from === null ? "added" : change.to === null ? "deleted" : "modified" }];
	});
}

/** Fill `entry` with the changed lines of a regular file's two blobs; else say why they are not shown. */
async function readLines(reader: ObjectReader, change: TreeChange, entry: SteeringChange): Promise<string | null> {
	const regular = (mode: string | null) => mode === null || mode === "100644" || mode === "100755";
	if (!regular(change.from) || !regular(change.to)) return "not a regular file on both sides";
	const ids = [change.fromId, change.toId].filter((id): id is string => id !== null);
	const blobs = await readBlobs(reader, ids);
	if (typeof blobs === "string") return blobs;
	if (blobs.some((bytes) => bytes.length > STEERING_BYTES)) return "too large to show here: read it in the branch";
	const texts = blobs.map((bytes) => (bytes.includes(0) ? null : new TextDecoder().decode(bytes)));
	if (texts.some((text) => text === null)) return "binary";
	const [before, after] = change.fromId === null ? ["", texts[0] ?? ""] : [texts[0] ?? "", change.toId === null ? "" : (texts[1] ?? "")];
	const { lines, total } = lineChanges(before, after, STEERING_LINES);
	entry.lines = lines;
	entry.total = total;
	return null;
}
