import { readObjects } from "./object-check.ts";
import { type ObjectReader, withObjectReader } from "./object-reader.ts";
import { git, gitLine } from "./run.ts";

/**
 * Whether `ancestor` is reachable from `descendant`, proved on objects read
 * back and hashed. git walks parents without re-hashing the commits it
 * reads, so an object store a job wrote to can give a commit another parent
 * (the trunk's tip, to look "contained"; a task's tip, to look landed). A
 * "yes" from git is checked along one chain of parent links, each commit
 * hashed against its id; a "no" needs no proof, since it only ever holds a
 * step back. Null when git could not tell, or the chain does not hold.
 * `reader`: the caller's, when it reads other objects of this repository too.
 */
export async function provenAncestor(root: string, ancestor: string, descendant: string, reader?: ObjectReader): Promise<boolean | null> {
	const [from, to] = await Promise.all([commitNamed(root, ancestor), commitNamed(root, descendant)]);
	if (!from || !to) return null;
	if (from === to) return true;
	// The commits between, with their parents: none when `from` is not an ancestor (nothing of `to`'s history descends from it).
	const listed = await git(["rev-list", "--parents", "--ancestry-path", `${from}..${to}`, "--"], root);
	if (listed.exitCode !== 0) return null;
	const parentsOf = new Map<string, string[]>();
	for (const line of listed.stdout.split("\n")) {
		const [commit, ...parents] = line.trim().split(" ");
		if (commit) parentsOf.set(commit, parents);
	}
	if (parentsOf.size === 0) return false;
	const chain = chainOf(parentsOf, to, from);
	if (!chain) return null;
	// Each link read back and hashed: the commit names the next one as a parent.
	const read = await withObjectReader(root, reader, (objects) =>
		readObjects(
			objects,
			chain.map((id) => ({ id, type: "commit" as const })),
		),
	);
	if (typeof read === "string") return null;
	for (const [index, object] of read.entries()) {
		const next = index + 1 < chain.length ? chain[index + 1] : from;
		const header = new TextDecoder().decode(object.content).split("\n\n")[0] ?? "";
		if (!header.split("\n").includes(`parent ${next}`)) return null;
	}
	return true;
}

/** One chain from `tip` down to a commit whose parent is `base`, through commits git listed; null when there is none. */
function chainOf(parentsOf: Map<string, string[]>, tip: string, base: string): string[] | null {
	const chain: string[] = [];
	const seen = new Set<string>();
	let at: string | undefined = tip;
	while (at !== undefined && !seen.has(at)) {
		seen.add(at);
		chain.push(at);
		const parents: string[] = parentsOf.get(at) ?? [];
		if (parents.includes(base)) return chain;
		at = parents.find((parent: string) => parentsOf.has(parent) && !seen.has(parent));
	}
	return null;
}

/** A commit's full sha, or null. */
export function commitOf(root: string, revision: string): Promise<string | null> {
	return gitLine(["rev-parse", "--verify", "--quiet", "--end-of-options", `${revision}^{commit}`], root);
}

/**
 * A full object id as it is (no git process: rev-list fails on one that
 * names no commit, and the chain's commits are hashed); a name, resolved.
 */
function commitNamed(root: string, revision: string): Promise<string | null> {
	return FULL_ID.test(revision) ? Promise.resolve(revision) : commitOf(root, revision);
}

const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
