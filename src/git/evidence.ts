import { lstat, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "./run.ts";
import { hiddenEntries, parsePorcelainV2, type WorkingState } from "./status.ts";

/**
 * `git status` as evidence that a tree is exactly its commit.
 *
 * A plain `git status` answers from the repository's index and local
 * configuration, and both can make it stop comparing content: an fsmonitor
 * hook or an untracked cache that says "nothing changed", `core.ignoreStat`,
 * `core.checkStat=minimal` with `core.trustctime=false`, `submodule.*.ignore`,
 * assume-unchanged and skip-worktree bits, index entries whose stat data
 * were written to match an edited file. Even with defaults, git compares
 * whole seconds of ctime (unless built with USE_NSEC), so a same-size edit
 * whose mtime is put back within the same second passes for clean.
 *
 * So the gate never asks the checkout's own index. It builds its own from
 * the commit under test (`read-tree`) in a private temp folder: the first
 * status hashes every tracked file's content. Before each later status it
 * compares every tracked file's nanosecond stat (size, mtime, ctime, inode,
 * mode) with what it saw when the content was last verified; any difference
 * rebuilds the index, so git hashes the content again. A process can put an
 * mtime back, never a ctime. Every call carries the overrides below, which
 * reach submodules too (git passes `-c` settings on to the git processes it
 * starts). Jobs never see this index: it is not in their environment.
 */
const EVIDENCE_CONFIG = [
	"core.fsmonitor=false",
	"core.untrackedCache=false",
	"core.ignoreStat=false",
	"core.checkStat=default",
	"core.trustctime=true",
	"core.sparseCheckout=false",
	"status.showUntrackedFiles=all",
	"diff.ignoreSubmodules=none",
].flatMap((setting) => ["-c", setting]);

export interface EvidenceIndex {
	/**
	 * Branch, HEAD and every path that differs from the commit (untracked
	 * included), content-verified; null when git could not answer.
	 */
	status(): Promise<WorkingState | null>;
	close(): Promise<void>;
}

/**
 * A private index holding `revision`'s tree. Null when git could not build
 * it (an unborn branch, a broken object store): never treated as "clean".
 */
export async function openEvidenceIndex(root: string, revision: string): Promise<EvidenceIndex | null> {
	const dir = await mkdtemp(join(tmpdir(), "discern-evidence-"));
	const env = { ...process.env, GIT_INDEX_FILE: join(dir, "index") };
	const remove = () => rm(dir, { recursive: true, force: true });
	const run = (args: readonly string[], optionalLocks = false) => git([...EVIDENCE_CONFIG, ...args], root, { env, optionalLocks });

	const commit = await git(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`], root);
	const sha = commit.stdout.trim();
	// A fresh index has no stat data: the next status must hash every tracked file.
	const build = async () => {
		await rm(env.GIT_INDEX_FILE, { force: true });
		return (await run(["read-tree", sha])).exitCode === 0;
	};
	const listed = commit.exitCode === 0 && (await build()) ? await run(["ls-files", "-s", "-z"]) : null;
	if (!listed || listed.exitCode !== 0) {
		await remove();
		return null;
	}
	// `<mode> <object> <stage>\t<path>`; mode 160000 is a submodule.
	const entries = listed.stdout.split("\0").filter((entry) => entry !== "");
	const tracked = entries.map((entry) => entry.slice(entry.indexOf("\t") + 1));
	const submodules = entries.filter((entry) => entry.startsWith("160000 ")).map((entry) => entry.slice(entry.indexOf("\t") + 1));
	// What the files looked like when their content was last verified (taken before the verifying status).
	let verified = await fingerprint(root, tracked);
	let fresh = true;
	return {
		async status() {
			const now = await fingerprint(root, tracked);
			if (!fresh && !sameFingerprint(verified, now)) {
				if (!(await build())) return null;
				fresh = true;
			}
			verified = now;
			// Optional locks on: status writes back the stat data it verified, so an unchanged tree is compared cheaply next time.
			const [result, hidden] = await Promise.all([
				run(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=none"], true),
				submodules.length > 0 ? hiddenInSubmodules(root, submodules) : [],
			]);
			fresh = false;
			if (result.exitCode !== 0 || hidden === null) return null;
			const state = parsePorcelainV2(result.stdout);
			for (const path of hidden) state.changes.push({ path, kind: "modified", staged: false });
			return state;
		},
		close: remove,
	};
}

/**
 * A submodule keeps its own index, which this private one does not replace:
 * files git is told to ignore there (assume-unchanged, skip-worktree) would
 * hide their edits from the submodule's status. They count as changed.
 */
async function hiddenInSubmodules(root: string, submodules: readonly string[]): Promise<string[] | null> {
	const listed = await git([...EVIDENCE_CONFIG, "ls-files", "-v", "-z", "--recurse-submodules"], root);
	if (listed.exitCode !== 0) return null;
	const inside = (path: string) => submodules.some((submodule) => path.startsWith(`${submodule}/`));
	return hiddenEntries(listed.stdout).filter(inside);
}

/** Nanosecond stat of every tracked path, in order ("absent" when gone). */
async function fingerprint(root: string, paths: readonly string[]): Promise<string[]> {
	return Promise.all(
		paths.map(async (path) => {
			const found = await lstat(join(root, path), { bigint: true }).catch(() => null);
			return found ? `${found.size}:${found.mtimeNs}:${found.ctimeNs}:${found.ino}:${found.mode}` : "absent";
		}),
	);
}

function sameFingerprint(a: readonly string[], b: readonly string[]): boolean {
	return a.length === b.length && a.every((entry, index) => entry === b[index]);
}
