import { posix } from "node:path";
import { readBlobs, subtreesOf, type TreeRecord, verifiedTree, type WalkedTree } from "../git/object-check.ts";
import type { ObjectReader } from "../git/object-reader.ts";
import { compileGlob, globProblem } from "../scopes/glob.ts";
import { asDiskReads, importsOf, isSettingsFile, leadsToSteering, normalPath, type Reached, steersAgents } from "../scopes/steering.ts";
import { pathsNamedIn } from "../scopes/steering-words.ts";
import { isRunnerFile, reachedAs } from "../scopes/word-resolvers.ts";

/** How many files are read per commit, and how many bytes in all, following what steering files name. */
const REACH_READS = 2000;
const REACH_BYTES = 64 << 20;

/** What steering files name on the commits judged, or why it could not all be followed (then any change may steer). */
export interface Reach {
	reached: Reached[];
	/** Null when everything was followed; else why not, for the person deciding. */
	incomplete: string | null;
}

/**
 * Every path an agent reads or runs because a steering file points at it,
 * on each commit (the trunk's, where agents stand now, and the branch's,
 * what they would read once it lands): from every steering file of the
 * tree at any depth (a nested `pkg/CLAUDE.md` as much as the root one),
 * its `@path` imports, the target of a symbolic link at a steering path
 * (`pkg/AGENTS.md → ../docs/notes.md`, `.claude/commands → ../tools/cmds`,
 * `.vscode → config/vscode`), and the paths a settings file's strings name
 * (scopes/steering-words.ts); then from what those reach in turn, with no
 * limit on hops. Read from hashed objects. Bounded by files and bytes read:
 * past the bound, or when a tree cannot be read, the reach is incomplete —
 * never silently short.
 */
export async function steeringReach(reader: ObjectReader, commits: readonly string[], sources: readonly string[]): Promise<Reach> {
	const trees: TreeRecord[][] = [];
	let before: WalkedTree | null = null;
	for (const commit of commits) {
		// The trunk's and the branch's trees share most folders: each after the first takes those of the one before.
		const tree: WalkedTree | string = await verifiedTree(reader, commit, before ? subtreesOf(before) : undefined);
		if (typeof tree === "string") return { reached: [], incomplete: `git could not read the tree of ${commit.slice(0, 7)} (${tree})` };
		trees.push(tree.records);
		before = tree;
	}
	const exists = existence(trees);
	const reached = new Map<string, Reached>();
	// Whether a record is where following starts, judged once: a folder the trees share holds the very same records.
	const starts = new Map<TreeRecord, boolean>();
	const startsHere = (record: TreeRecord) => {
		let judged = starts.get(record);
		if (judged === undefined) {
			judged = record.mode === "120000" ? leadsToSteering(record.path) : steersAgents(record.path, sources) !== null;
			starts.set(record, judged);
		}
		return judged;
	};
	for (const [index, records] of trees.entries()) {
		const incomplete = await followTree(reader, records, startsHere, exists, reached);
		if (incomplete) return { reached: [...reached.values()], incomplete: `${incomplete} on ${commits[index]?.slice(0, 7)}` };
	}
	return { reached: [...reached.values()], incomplete: null };
}

/** Follow one tree from its steering files, adding what they name to `reached`; the reason when the bound stopped it. */
async function followTree(
	reader: ObjectReader,
	records: readonly TreeRecord[],
	startsHere: (record: TreeRecord) => boolean,
	exists: Exists,
	reached: Map<string, Reached>,
): Promise<string | null> {
	// Sorted by the disk's names once something is reached: most trees reach nothing.
	let byPath: { record: TreeRecord; normal: string }[] | null = null;
	const under = (path: string) => {
		byPath ??= records.map((record) => ({ record, normal: normalPath(record.path) })).sort((a, b) => (a.normal < b.normal ? -1 : a.normal > b.normal ? 1 : 0));
		return recordsUnder(byPath, normalPath(path));
	};
	const read = new Set<string>();
	let bytes = 0;
	let level = records.filter(startsHere);
	while (level.length > 0) {
		const fresh = [...new Map(level.filter((record) => !read.has(record.path)).map((record) => [record.path, record])).values()].filter(
			(record) => record.mode === "120000" || record.mode === "100644" || record.mode === "100755",
		);
		if (read.size + fresh.length > REACH_READS) return `more than ${REACH_READS} files are named from steering files`;
		for (const record of fresh) read.add(record.path);
		const blobs = await readBlobs(
			reader,
			fresh.map((record) => record.id),
		);
		if (typeof blobs === "string") return blobs;
		const next: TreeRecord[] = [];
		for (const [index, record] of fresh.entries()) {
			const content = blobs[index] ?? new Uint8Array();
			bytes += content.length;
			if (bytes > REACH_BYTES) return `the files named from steering files hold more than ${REACH_BYTES >> 20} MiB`;
			const { through, named } = namedBy(record, content, exists);
			for (const [target, into] of [...through.map((path) => [path, true] as const), ...named.map((path) => [path, false] as const)]) {
				const key = normalPath(target);
				if (!reached.has(key)) reached.set(key, { path: target, via: record.path });
				next.push(...under(target).filter((found) => into || normalPath(found.path) === key));
			}
		}
		level = next;
	}
	return null;
}

/**
 * What exists on either side, files and the folders above them, compared
 * as a disk would; the sets are made when a settings file or script is
 * first read, not before.
 */
function existence(trees: readonly (readonly TreeRecord[])[]): Exists {
	let sets: { known: Set<string>; files: Set<string>; stems: Set<string>; lastNames: Set<string>; byFolder: Map<string, string[]> } | null = null;
	const made = () => {
		if (sets) return sets;
		const known = new Set<string>();
		const files = new Set<string>();
		const stems = new Set<string>();
		const byFolder = new Map<string, string[]>();
		for (const records of trees)
			for (const { path } of records) {
				const normal = normalPath(path);
				known.add(normal);
				if (!files.has(normal)) {
					const cut = normal.lastIndexOf("/");
					const folder = cut < 0 ? "" : normal.slice(0, cut);
					const siblings = byFolder.get(folder);
					if (siblings) siblings.push(normal);
					else byFolder.set(folder, [normal]);
				}
				files.add(normal);
				for (const name of reachedAs(normal)) stems.add(name);
				for (let cut = normal.lastIndexOf("/"); cut > 0; cut = normal.lastIndexOf("/", cut - 1)) {
					const folder = normal.slice(0, cut);
					if (known.has(folder)) break;
					known.add(folder);
				}
			}
		const lastNames = new Set<string>();
		for (const name of [...known, ...stems]) lastNames.add(name.slice(name.lastIndexOf("/") + 1));
		sets = { known, files, stems, lastNames, byFolder };
		return sets;
	};
	const globbed = new Map<string, readonly string[]>();
	const glob = (pattern: string): readonly string[] => {
		const known = globbed.get(pattern);
		if (known) return known;
		// The scope glob dialect (scopes/glob.ts) on names folded as a disk folds them; a pattern it refuses is no glob of it.
		const folded = pattern
			.split("/")
			.map((segment) => (segment === "" ? "" : asDiskReads(segment)))
			.join("/");
		const test = globProblem(folded) === null ? compileGlob(folded) : null;
		const matches = test ? globScope(made(), folded).filter((path) => test(path)) : [];
		globbed.set(pattern, matches);
		return matches;
	};
	return {
		path: (path) => made().known.has(normalPath(path)),
		file: (path) => made().files.has(normalPath(path)),
		reachable: {
			path: (path) => {
				const normal = normalPath(path);
				return made().known.has(normal) || made().stems.has(normal);
			},
			lastName: (name) => made().lastNames.has(asDiskReads(name)),
		},
		glob,
	};
}

/** The files a pattern may match: those of its folder when only its last name is a pattern (`bin/*.sh`), else every file under its literal folders. */
function globScope(sets: { files: Set<string>; byFolder: Map<string, string[]> }, pattern: string): readonly string[] {
	const segments = pattern.replace(/^\//, "").split("/");
	const first = segments.findIndex((segment) => /[*?[{\]]/.test(segment));
	const folder = segments.slice(0, Math.max(first, 0)).join("/");
	if (first === segments.length - 1) return sets.byFolder.get(folder) ?? [];
	return folder === "" ? [...sets.files] : [...sets.files].filter((path) => path.startsWith(`${folder}/`));
}

/** Whether a repository path is on the trunk's or the branch's tree: any path, or a file (not a folder); the files a glob matches there. */
interface Exists {
	path: (path: string) => boolean;
	file: (path: string) => boolean;
	/** Whether a word could name a file: a path of either tree, or a name a file is reached by (`tools/srv` for tools/srv.js). */
	reachable: { path: (path: string) => boolean; lastName: (name: string) => boolean };
	glob: (pattern: string) => readonly string[];
}

/**
 * What one file or link names: `through`, paths whose every file is read
 * in turn (a link's target and a prose file's `@` imports stand for
 * steering files, a linked `.claude/commands`), and `named`, paths that
 * steer agents but whose folders are not read through. A settings file's
 * paths, and a script's (a hook's, an MCP server's) words that name files
 * of either tree, are what it runs or reads: a folder so named steers
 * agents whole, but its files are not read for what they name in turn (a
 * server's folder is code, not instructions; reading it would soon pass
 * the bound for nothing). A script's words that name a folder are left
 * out: `eslint src` lints the folder, it does not run it. An agent's
 * markdown (a command, a skill, a rule) is read for its imports and, as a
 * script is, for every word: its frontmatter (`allowed-tools:
 * Bash(bash scripts/deploy.sh:*)`), code spans, fenced blocks and !`cmd`
 * lines run or name files. A task runner's file (a Makefile, package.json,
 * pyproject.toml) is read as a script whatever its form. A binary file
 * names nothing.
 */
function namedBy(record: TreeRecord, content: Uint8Array, exists: Exists): { through: string[]; named: string[] } {
	const text = new TextDecoder().decode(content);
	if (record.mode === "120000") return { through: linkTarget(record.path, text), named: [] };
	if (content.includes(0)) return { through: [], named: [] };
	const { glob, reachable } = exists;
	if (isSettingsFile(record.path)) {
		if (isGateConfig(record.path)) return { through: [], named: [] };
		return { through: [], named: pathsNamedIn(text, record.path, isRunnerFile(record.path) ? exists.file : exists.path, { glob, reachable }) };
	}
	if (!text.startsWith("#!") && isProse(record.path))
		return { through: importsOf(text, record.path), named: pathsNamedIn(text, record.path, exists.file, { everyWord: true, prose: true, glob, reachable }) };
	return { through: [], named: pathsNamedIn(text, record.path, exists.file, { everyWord: true, glob, reachable }) };
}

/** Instructions written for an agent to read (markdown, plain text, rules files without an extension), not a script it runs (a `#!` line makes one of any name, and a Makefile or justfile is one). */
function isProse(path: string): boolean {
	const name = posix.basename(path).toLowerCase();
	if (isRunnerFile(path)) return false;
	return /\.(md|mdc|markdown|txt|rules)$/.test(name) || !name.slice(1).includes(".");
}

/**
 * discern.toml is the gate: its jobs' commands (`biome check src`) are
 * judged as gate changes, and its `[instructions].sources` are followed by
 * name. Its words are not read as paths: every job naming `src` would make
 * all of `src` need the owner.
 */
function isGateConfig(path: string): boolean {
	return normalPath(path) === "discern.toml";
}

/** The records at `normal` or under it, from records sorted by their normal path. */
function recordsUnder(sorted: readonly { record: TreeRecord; normal: string }[], normal: string): TreeRecord[] {
	let low = 0;
	let high = sorted.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if ((sorted[middle]?.normal ?? "") < normal) low = middle + 1;
		else high = middle;
	}
	const found: TreeRecord[] = [];
	for (let index = low; index < sorted.length; index++) {
		const entry = sorted[index];
		if (!entry) break;
		if (entry.normal === normal || entry.normal.startsWith(`${normal}/`)) found.push(entry.record);
		else if (!entry.normal.startsWith(normal)) break;
	}
	return found;
}

/** Where a link inside the repository points, as a repository path; nothing for a target outside it. */
function linkTarget(from: string, target: string): string[] {
	if (target.startsWith("/")) return [];
	const path = posix.normalize(posix.join(posix.dirname(from), target)).replace(/\/+$/, "");
	return path === "." || path === ".." || path.startsWith("../") ? [] : [path];
}
