import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMITTED_IGNORE_RULES } from "../git/evidence/outside-the-tree.ts";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import { firstNonBlankLine } from "../text/first-line.ts";
import type { ProcessEnv } from "./env.ts";
import { PINNED_STATUS } from "./tree-work.ts";

/**
 * Uncommitted work of a checkout, as a commit object no branch points at:
 * tracked changes and untracked files (not those the `.gitignore` files
 * ignore; those only info/exclude or a global excludes file hides are work,
 * as done and tree-work.ts judge it), staged in a
 * temporary index so the checkout's own index is never touched. The
 * temporary index starts from HEAD's tree with no flags and no stat data,
 * and git's shortcuts are pinned off: every file's real content is read,
 * including files the checkout's index marks assume-unchanged or
 * skip-worktree. Its parent
 * is HEAD; `git restore --source=<commit> -- .` in a checkout of the branch
 * brings the files back. Null (with git's reason) when it could not be made.
 */
export async function snapshotWork(
	path: string,
	head: string | null,
	env: ProcessEnv,
	message: string,
): Promise<{ ok: true; commit: string } | { ok: false; reason: string }> {
	const dir = await mkdtemp(join(tmpdir(), "discern-wip-"));
	const withIndex: Record<string, string | undefined> = { ...env, GIT_INDEX_FILE: join(dir, "index") };
	const failed = (what: string, result: { exitCode: number; stderr: string }) => ({
		ok: false as const,
		reason: `${what}: ${firstNonBlankLine(result.stderr) ?? `exit ${result.exitCode}`}`,
	});
	try {
		const read = await git([...PINNED_STATUS, ...(head ? ["read-tree", head] : ["read-tree", "--empty"])], path, { env: withIndex });
		if (read.exitCode !== 0) return failed("git read-tree", read);
		const added = await git([...PINNED_STATUS, "add", "-A", "--", "."], path, { env: withIndex });
		if (added.exitCode !== 0) return failed("git add", added);
		// Untracked as done counts it (COMMITTED_IGNORE_RULES): what info/exclude or a global excludes file hid from `add -A` is work too.
		const skipped = await git([...PINNED_STATUS, "ls-files", "-z", "--others", ...COMMITTED_IGNORE_RULES], path, { env: withIndex });
		if (skipped.exitCode !== 0) return failed("git ls-files", skipped);
		const excluded = nulSeparated(skipped.stdout);
		if (excluded.length > 0) {
			const forced = await git([...PINNED_STATUS, "--literal-pathspecs", "add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], path, {
				env: withIndex,
				input: `${excluded.join("\0")}\0`,
			});
			if (forced.exitCode !== 0) return failed("git add", forced);
		}
		const tree = await git([...PINNED_STATUS, "write-tree"], path, { env: withIndex });
		if (tree.exitCode !== 0) return failed("git write-tree", tree);
		// A commit needs an author: discern's own when git has none configured here.
		const known =
			(await git(["var", "GIT_COMMITTER_IDENT"], path, { env })).exitCode === 0 && (await git(["var", "GIT_AUTHOR_IDENT"], path, { env })).exitCode === 0;
		const identity = known
			? {}
			: { GIT_AUTHOR_NAME: "discern", GIT_AUTHOR_EMAIL: "discern@localhost", GIT_COMMITTER_NAME: "discern", GIT_COMMITTER_EMAIL: "discern@localhost" };
		const commit = await git(["commit-tree", tree.stdout.trim(), ...(head ? ["-p", head] : []), "-m", message], path, { env: { ...env, ...identity } });
		if (commit.exitCode !== 0) return failed("git commit-tree", commit);
		return { ok: true, commit: commit.stdout.trim() };
	} finally {
		await rm(dir, { recursive: true, force: true }).catch(() => undefined);
	}
}
