import { posix } from "node:path";
import { readCommittedFile } from "../git/committed-file.ts";
import { readBlobs, verifiedRoot } from "../git/object-check.ts";
import type { ObjectReader } from "../git/object-reader.ts";
import type { TreeChange } from "../git/tree-diff.ts";
import { IMPORTING_FILES, importsOf, leadsToSteering, steersAgents } from "../scopes/steering.ts";
import { lineChanges } from "../text/line-changes.ts";

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
/** How far `@path` imports are followed (Claude Code stops at 5 hops), and how many files are read per commit. */
const IMPORT_DEPTH = 5;
const IMPORT_READS = 64;
const IMPORT_BYTES = 256 * 1024;

/**
 * The changed files that steer agents (scopes/steering.ts), each with its
 * changed lines read from hashed blobs — the first few files, a few lines
 * each. A rename is a deletion and an addition: both paths are asked about.
 * Besides the list and `sources`, a file an instruction file imports
 * (`@docs/style.md` in CLAUDE.md) on either side steers the agent that
 * follows the import, as much as the file that names it.
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

/** The changes that steer agents, what reads each and how it changed, without their lines: what a Proof's judgement names. */
export async function steeringPaths(
	reader: ObjectReader,
	commits: readonly string[],
	changes: readonly TreeChange[],
	sources: readonly string[],
): Promise<{ change: TreeChange; readBy: string; kind: SteeringChange["change"] }[]> {
	const named = changes.map((change) => change.path).filter((path) => steersAgents(path, sources) !== null);
	const imported = await importedFiles(reader, commits, named);
	return changes.flatMap((change) => {
		const readBy = steersAgents(change.path, sources, imported);
		return readBy === null ? [] : [{ change, readBy, kind: change.from === null ? "added" : change.to === null ? "deleted" : "modified" }];
	});
}

/**
 * Every file the instruction files import, on each commit: from the root
 * ones agents always read and the changed steering files, `@path` imports
 * followed a few hops, read from hashed objects. Bounded; what is not read
 * is not followed (the files named directly still count).
 */
async function importedFiles(reader: ObjectReader, commits: readonly string[], changed: readonly string[]): Promise<string[]> {
	const imported = new Set<string>();
	for (const commit of commits) {
		const root = await verifiedRoot(reader, commit);
		if (typeof root === "string") continue;
		const seen = new Set<string>();
		// Links at the root by a steering name (CLAUDE.md → docs/agents.md, .claude → config/claude) are read through too.
		const links = [...root.entries].filter(([name, entry]) => entry.mode === "120000" && leadsToSteering(name)).map(([name]) => name);
		let level = [...IMPORTING_FILES, ...links, ...changed];
		for (let depth = 0; depth <= IMPORT_DEPTH && level.length > 0; depth++) {
			const next: string[] = [];
			for (const path of level) {
				if (seen.has(path) || seen.size >= IMPORT_READS) continue;
				seen.add(path);
				const read = await readCommittedFile(reader, root, path, IMPORT_BYTES);
				if (!read || (read.kind === "file" && read.bytes.includes(0))) continue;
				// A link (CLAUDE.md → docs/agents.md) is read through: the agent reads its target.
				const targets = read.kind === "link" ? linkTarget(path, read.target) : importsOf(new TextDecoder().decode(read.bytes), path);
				for (const target of targets) {
					imported.add(target);
					next.push(target);
				}
			}
			level = next;
		}
	}
	return [...imported];
}

/** Where a link inside the repository points, as a repository path; nothing for a target outside it. */
function linkTarget(from: string, target: string): string[] {
	if (target.startsWith("/")) return [];
	const path = posix.normalize(posix.join(posix.dirname(from), target));
	return path === "." || path === ".." || path.startsWith("../") ? [] : [path];
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
