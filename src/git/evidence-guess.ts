import { resolve } from "node:path";
import type { Captured } from "../platform/process.ts";
import type { ObjectReader, RawObject } from "./object-reader.ts";

/**
 * The evidence's guess (evidence.ts, `openEvidenceIndex`): where the
 * checkout is and what HEAD names, from the repository discovered
 * in-process and the object reader, so that the walk need not wait on
 * `rev-parse`, whose answer must then agree in full.
 */

/**
 * `locate`'s answer as the discovered repository and the reader's HEAD
 * would make it, with the commit and its root tree as the reader gave them
 * (the walk's first two rounds); null when the reader names no commit.
 */
export async function guessLocation(root: string, reader: ObjectReader, discovered: { gitDir: string; commonDir: string }): Promise<{ located: Captured; objects: RawObject[] } | null> {
	const [head, tree] = await reader.fetch(["HEAD", "HEAD^{tree}"]);
	if (!head || head.type !== "commit" || !/^[0-9a-f]+$/.test(head.id)) return null;
	return {
		located: { exitCode: 0, stdout: `${root}\n${discovered.gitDir}\n${discovered.commonDir}\n${head.id}\n`, stderr: "" },
		objects: tree?.type === "tree" ? [head, tree] : [head],
	};
}

/**
 * A reader that answers, without asking git again, the objects it was
 * given (by id: an object's content never changes, and whoever reads one
 * hashes it, object-check.ts). HEAD may have moved between the two names
 * the guess read: then its tree is not the one the commit names, and is
 * read as any other.
 */
export function primedWith(reader: ObjectReader, known: readonly RawObject[]): ObjectReader {
	const byId = new Map(known.map((object) => [object.id, object]));
	return {
		fetch: (ids) => (ids.every((id) => byId.has(id)) ? Promise.resolve(ids.map((id) => byId.get(id) ?? null)) : reader.fetch(ids)),
		close: () => reader.close(),
	};
}

/** Whether git's answer names the same work tree, repository, common dir and commit as the guess. */
export function sameLocation(guess: Captured, located: Captured, root: string): boolean {
	if (located.exitCode !== 0) return false;
	const [top, gitDir, commonDir, sha] = located.stdout.trim().split("\n");
	const [, guessedGitDir, guessedCommonDir, guessedSha] = guess.stdout.trim().split("\n");
	if (!top || !gitDir || !commonDir || !sha || !guessedGitDir || !guessedCommonDir) return false;
	return resolve(top) === resolve(root) && resolve(gitDir) === resolve(guessedGitDir) && resolve(root, commonDir) === resolve(root, guessedCommonDir) && sha === guessedSha;
}
