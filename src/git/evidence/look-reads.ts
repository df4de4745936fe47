import type { Stats } from "node:fs";
import { lstat, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readRegularFile } from "../../platform/files.ts";
import type { Captured } from "../../platform/process.ts";
import type { git } from "../run.ts";
import { locationOf } from "./guess.ts";
import { COMMITTED_IGNORE_RULES } from "./outside-the-tree.ts";
import type { StagedReading } from "./own-index.ts";

/**
 * What only git answers in a look of the evidence (evidence.ts): HEAD and
 * its branch, with the refs a caller watches, and what points git at the
 * repository. The untracked listing and the checkout's index are asked beside them.
 */

/** A ref as `git for-each-ref` lists it: its object, and the ref it points to when it is symbolic (empty otherwise). */
export interface RefReading {
	ref: string;
	object: string;
	symref: string;
}

/**
 * What points git at a repository, as found: the folder's `.git` (a file by
 * what it says, a worktree's or submodule's pointer; a folder by its
 * identity), the git dir and the common dir git resolves from it (each by
 * the identity of what the path leads to: a job renaming a worktree's git
 * dir away and putting a link to a copy in its place keeps every pointer's
 * text), and the git dir's `commondir` file (which git reads even where
 * GIT_DIR is given). Read as readRegularFile reads: a job can put a link or
 * a FIFO at any of them.
 */
export async function gitLinksOf(root: string, gitDir: string): Promise<string> {
	const dotGit = join(root, ".git");
	const pointer = (path: string) => readRegularFile(path, POINTER_BYTES)?.toString("utf8") ?? null;
	const identity = (found: Stats | null) =>
		found ? `${found.isFile() ? "file" : found.isDirectory() ? "folder" : found.isSymbolicLink() ? "link" : "other"} ${found.dev}:${found.ino}` : "absent";
	const commonDir = pointer(join(gitDir, "commondir"));
	const [link, ownDir, sharedDir] = await Promise.all([
		lstat(dotGit).catch(() => null),
		lstat(gitDir).catch(() => null),
		stat(commonDir === null ? gitDir : resolve(gitDir, commonDir.trim())).catch(() => null),
	]);
	const dotGitSays = link?.isFile() ? `file ${pointer(dotGit) ?? "not a small file"}` : identity(link);
	return [dotGitSays, identity(ownDir), identity(sharedDir), commonDir ?? "no commondir"].join("\0");
}

/** More than any `.git` or `commondir` pointer git writes holds (a path). */
const POINTER_BYTES = 64 * 1024;

/** What only git answers in a look: HEAD and its branch, the untracked files, and what the checkout's own index stages. */
export interface LookReads {
	head: Promise<HeadReading>;
	untracked: ReturnType<typeof git>;
	staged: Promise<StagedReading>;
}

/** HEAD's commit (null when git names none) and the ref it resolves to (null when detached); `watched`: see `status`. */
export interface HeadReading {
	sha: string | null;
	ref: string | null;
	watched?: RefReading[] | null;
}

export type Run = (args: readonly string[]) => ReturnType<typeof git>;

/** `run` reads through the private index; `readStaged` judges the checkout's own, which must hold exactly the commit's tree (own-index.ts). */
export function askGit(run: Run, head: Promise<HeadReading> | null, readStaged: () => Promise<StagedReading>): LookReads {
	return {
		head: head ?? run(["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"]).then(headOf),
		// Untracked is what the commit's own .gitignore files do not ignore (see COMMITTED_IGNORE_RULES).
		untracked: run(["ls-files", "-z", "--others", ...COMMITTED_IGNORE_RULES]),
		staged: readStaged(),
	};
}

/** `rev-parse HEAD --symbolic-full-name HEAD`'s answer; `skip`: the lines before it (`locate` asks where things are first). */
export function headOf(read: Captured, skip = 0): HeadReading {
	if (read.exitCode !== 0) return { sha: null, ref: null };
	// By position: git prints no ref at all for a HEAD it finds ambiguous (a branch or tag named HEAD).
	const [sha, ref] = read.stdout.split("\n").slice(skip);
	return { sha: sha && /^[0-9a-f]+$/.test(sha) ? sha : null, ref: ref && ref !== "HEAD" ? ref : null };
}

/** HEAD as `locate` read it, after the work tree, git dir and common dir. */
export function headOfLocated(read: Captured): HeadReading {
	// Only an answer whose folders read back whole (guess.ts) has HEAD where it is counted to be.
	return locationOf(read) ? headOf(read, 3) : { sha: null, ref: null };
}

/**
 * HEAD, read with the refs a caller watches in one process: for-each-ref
 * marks the ref HEAD resolves to, so a HEAD still on `branchRef` is answered
 * by the same listing (its object is HEAD's commit). Unmarked (HEAD went to
 * another branch, or was detached) git is asked plainly, so that drift
 * names where HEAD went.
 */
export async function headWithRefs(run: Run, branchRef: string, watch: readonly string[]): Promise<HeadReading> {
	const listed = await run(["for-each-ref", "--format=%(HEAD)%00%(refname)%00%(objectname)%00%(symref)", branchRef, ...watch]);
	const refs: (RefReading & { head: boolean })[] = [];
	for (const line of listed.exitCode === 0 ? listed.stdout.split("\n") : []) {
		const [mark, ref, object, symref] = line.split("\0");
		if (ref && object !== undefined) refs.push({ head: mark === "*", ref, object, symref: symref ?? "" });
	}
	const watched = listed.exitCode === 0 ? refs.map(({ ref, object, symref }) => ({ ref, object, symref })) : null;
	const marked = refs.find((reading) => reading.head && reading.ref === branchRef);
	if (marked) return { sha: marked.object, ref: marked.ref, watched };
	return { ...headOf(await run(["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"])), watched };
}
