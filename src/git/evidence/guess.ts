import { resolve } from "node:path";
import type { Captured } from "../../platform/process.ts";
import type { ObjectReader, RawObject } from "../object-reader.ts";
import { answerLines } from "../printable-path.ts";

/**
 * The evidence's guess (evidence.ts, `openEvidenceIndex`): where the
 * checkout is and what HEAD names, from the repository discovered
 * in-process and the object reader, so that the walk need not wait on
 * `rev-parse`, whose answer must then agree in full.
 */

/** Where git puts a checkout's work tree, git dir and common dir, and the commit a revision names there. */
export interface Location {
	top: string;
	gitDir: string;
	commonDir: string;
	commit: string;
}

/** The location in `locate`'s answer (`rev-parse --show-toplevel --absolute-git-dir --git-common-dir <rev>^{commit}`); null when it names none whole. */
export function locationOf(located: Captured): Location | null {
	const lines = answerLines(located.stdout);
	const [top, gitDir, commonDir, commit, ref] = lines;
	// Four lines, and a fifth only as a ref (HEAD's, or none when git finds it ambiguous): a path holding a line break shifts the rest.
	if (located.exitCode !== 0 || lines.length > 5 || (lines.length === 5 && !(ref === "HEAD" || ref?.startsWith("refs/")))) return null;
	if (!top || !gitDir || !commonDir || !commit || !/^[0-9a-f]+$/.test(commit)) return null;
	return { top, gitDir, commonDir, commit };
}

/**
 * The location as the discovered repository and the reader's HEAD
 * would make it, with the commit and its root tree as the reader gave them
 * (the walk's first two rounds); null when the reader names no commit.
 */
export async function guessLocation(
	root: string,
	reader: ObjectReader,
	discovered: { gitDir: string; commonDir: string },
): Promise<{ location: Location; objects: RawObject[] } | null> {
	const [head, tree] = await reader.fetch(["HEAD", "HEAD^{tree}"]);
	if (head?.type !== "commit" || !/^[0-9a-f]+$/.test(head.id)) return null;
	return {
		location: { top: root, gitDir: discovered.gitDir, commonDir: discovered.commonDir, commit: head.id },
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

/** Whether git's answer names the same work tree, repository, common dir and commit as the guess (a common dir as written is the work tree's relative path). */
export function sameLocation(guess: Location, git: Location | null, root: string): boolean {
	if (!git) return false;
	return (
		resolve(git.top) === resolve(guess.top) &&
		resolve(git.gitDir) === resolve(guess.gitDir) &&
		resolve(root, git.commonDir) === resolve(root, guess.commonDir) &&
		git.commit === guess.commit
	);
}
