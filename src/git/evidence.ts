import { lstat, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { quoteName } from "../text/terminal.ts";
import { contentTransformedFromOutside } from "./outside-the-tree.ts";
import { git } from "./run.ts";
import { type ChangedPath, parsePorcelainV2, type WorkingState } from "./status.ts";

/**
 * `git status` as evidence that a tree is exactly its commit.
 *
 * A plain `git status` answers from the repository's index and local
 * configuration, and both can make it stop comparing content: an fsmonitor
 * hook or an untracked cache that says "nothing changed", `core.ignoreStat`,
 * `core.checkStat=minimal` with `core.trustctime=false`, `submodule.*.ignore`,
 * assume-unchanged and skip-worktree bits, index entries whose stat data
 * were written to match an edited file, conversions (autocrlf, a global
 * attributes file) that hash different bytes to the committed blob. Even
 * with defaults git compares whole seconds of ctime (unless built with
 * USE_NSEC), so a same-size edit whose mtime is put back passes for clean.
 *
 * So the gate never asks the checkout's own index. It builds its own from
 * the commit under test (`read-tree`) in a private temp folder: the first
 * status hashes every tracked file's content. Before each later status it
 * compares every tracked file's nanosecond stat (size, mtime, ctime, inode,
 * mode) with what it saw when the content was last verified; any difference
 * rebuilds the index, so git hashes the content again. A process can put an
 * mtime back, never a ctime. Submodules get the same treatment, each with
 * its own private index built from the commit the superproject records.
 * What configuration cannot switch off is refused (outside-the-tree.ts).
 * Jobs never see these indexes: they are not in their environment.
 */
const EVIDENCE_CONFIG = [
	"core.fsmonitor=false",
	"core.untrackedCache=false",
	"core.ignoreStat=false",
	"core.checkStat=default",
	"core.trustctime=true",
	"core.sparseCheckout=false",
	"core.fileMode=true",
	"core.symlinks=true",
	"core.autocrlf=false",
	"core.eol=lf",
	"core.safecrlf=false",
	"core.attributesFile=/dev/null",
	"status.showUntrackedFiles=all",
].flatMap((setting) => ["-c", setting]);

export interface EvidenceIndex {
	/**
	 * Branch, HEAD and every path that differs from the commit (untracked
	 * included, submodules' paths inside them), content-verified; null when
	 * git could not answer.
	 */
	status(): Promise<WorkingState | null>;
	close(): Promise<void>;
}

export type EvidenceOutcome =
	| { ok: true; index: EvidenceIndex }
	/** `unborn`: HEAD names no commit yet. */
	| { ok: false; reason: string; unborn?: boolean };

/**
 * A private index holding `revision`'s tree, for the checkout at `root`
 * (the folder discern runs jobs in: git must agree that it is the work tree).
 */
export async function openEvidenceIndex(root: string, revision: string): Promise<EvidenceOutcome> {
	let dir: string;
	try {
		dir = await mkdtemp(join(tmpdir(), "discern-evidence-"));
	} catch (error) {
		return { ok: false, reason: `discern could not make a private folder in ${quoteName(tmpdir())} (${error instanceof Error ? error.message : String(error)})` };
	}
	const opened = await openIn(root, revision, dir, null);
	if (!opened.ok) await rm(dir, { recursive: true, force: true });
	return opened;
}

/** One repository level (`name`: a submodule's path, null for the checkout); `dir` holds its index and its submodules' folders. */
async function openIn(root: string, revision: string, dir: string, name: string | null): Promise<EvidenceOutcome> {
	const label = name ?? root;
	const env = { ...process.env, GIT_INDEX_FILE: join(dir, "index"), GIT_ATTR_NOSYSTEM: "1" };
	const run = (args: readonly string[], options: { optionalLocks?: boolean; input?: string } = {}) =>
		git([...EVIDENCE_CONFIG, ...args], root, { env, ...options });

	const located = await run(["rev-parse", "--show-toplevel", "--git-common-dir", "--verify", "--quiet", `${revision}^{commit}`]);
	const [top, commonDir, sha] = located.stdout.trim().split("\n");
	if (located.exitCode !== 0 || !top || !commonDir || !sha) {
		return top && commonDir ? { ok: false, reason: "nothing is committed on this branch yet", unborn: true } : { ok: false, reason: `git cannot read ${quoteName(label)}` };
	}
	// A work tree moved by configuration (core.worktree, also per worktree) would have git judge one folder while jobs run in another.
	if (resolve(top) !== resolve(root)) return { ok: false, reason: `git's work tree for ${quoteName(label)} is ${quoteName(top)}, not the folder the jobs run in` };
	// A fresh index has no stat data: the next status must hash every tracked file.
	const build = async () => {
		await rm(env.GIT_INDEX_FILE, { force: true });
		return (await run(["read-tree", sha])).exitCode === 0;
	};
	const listed = (await build()) ? await run(["ls-files", "-s", "-z"]) : null;
	if (!listed || listed.exitCode !== 0) return { ok: false, reason: `git cannot read the commit ${sha.slice(0, 7)} in ${quoteName(label)}` };
	// `<mode> <object> <stage>\t<path>`; mode 160000 is a submodule at the commit it records.
	const entries = listed.stdout.split("\0").filter((entry) => entry !== "");
	const tracked = entries.map((entry) => entry.slice(entry.indexOf("\t") + 1));
	const gitlinks = entries.filter((entry) => entry.startsWith("160000 ")).map((entry) => ({ path: entry.slice(entry.indexOf("\t") + 1), sha: entry.split(" ")[1] ?? "" }));

	const [outside, submodules] = await Promise.all([
		contentTransformedFromOutside(run, resolve(root, commonDir), tracked),
		Promise.all(gitlinks.map((link, n) => openSubmodule(root, link, join(dir, `submodule-${n}`), name))),
	]);
	const closeAll = () => Promise.all(submodules.map((sub) => (sub.index ? sub.index.close() : undefined)));
	const refused = [...outside, ...submodules.flatMap((sub) => (sub.refused ? [sub.refused] : []))];
	if (refused.length > 0) {
		await closeAll();
		return { ok: false, reason: `git is told to see the files differently from outside the commit: ${refused.join("; ")}` };
	}

	// What the files looked like when their content was last verified (taken before the verifying status).
	let verified = await fingerprint(root, tracked);
	let fresh = true;
	const index: EvidenceIndex = {
		async status() {
			const now = await fingerprint(root, tracked);
			if (!fresh && !sameFingerprint(verified, now)) {
				if (!(await build())) return null;
				fresh = true;
			}
			verified = now;
			// Submodules are judged by their own private indexes below, not by their checkouts' indexes.
			// Optional locks on: status writes back the stat data it verified, so an unchanged tree is compared cheaply next time.
			const [result, inside] = await Promise.all([
				run(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=all"], { optionalLocks: true }),
				Promise.all(submodules.map((sub) => sub.changes())),
			]);
			fresh = false;
			if (result.exitCode !== 0 || inside.some((changes) => changes === null)) return null;
			const state = parsePorcelainV2(result.stdout);
			for (const changes of inside) state.changes.push(...(changes ?? []));
			return state;
		},
		close: async () => {
			await closeAll();
			await rm(env.GIT_INDEX_FILE, { force: true });
		},
	};
	return { ok: true, index };
}

interface Submodule {
	index: EvidenceIndex | null;
	/** Why this submodule cannot be vouched for (a configuration that hides content). */
	refused?: string;
	/** Its paths that differ from the commit the superproject records, prefixed with its path. */
	changes(): Promise<ChangedPath[] | null>;
}

/**
 * A submodule is clean when it is checked out at exactly the recorded
 * commit with a clean tree, or not checked out at all with nothing in its
 * folder (files placed in an uninitialised submodule's folder are invisible
 * to git, but not to the jobs).
 */
async function openSubmodule(root: string, link: { path: string; sha: string }, dir: string, parent: string | null): Promise<Submodule> {
	const folder = join(root, link.path);
	const name = parent === null ? link.path : `${parent}/${link.path}`;
	const changed = (kind: ChangedPath["kind"]): ChangedPath[] => [{ path: link.path, kind, staged: false }];
	const populated = await lstat(join(folder, ".git")).catch(() => null);
	if (!populated) {
		const changes = async () => ((await readdir(folder).catch(() => [])).length > 0 ? changed("untracked") : []);
		return { index: null, changes };
	}
	// Judged against the recorded commit: a checkout at another commit shows as changed files.
	const made = await mkdir(dir, { recursive: true }).then(
		() => true,
		() => false,
	);
	const opened = made ? await openIn(folder, link.sha, dir, name) : { ok: false as const, reason: `discern could not make a folder for ${quoteName(name)}` };
	if (!opened.ok) return { index: null, refused: opened.reason, changes: async () => null };
	const prefix = (change: ChangedPath): ChangedPath => ({ ...change, path: `${link.path}/${change.path}` });
	return {
		index: opened.index,
		async changes() {
			const state = await opened.index.status();
			if (!state) return null;
			// HEAD elsewhere than the recorded commit is a change even when the files happen to match.
			const moved = state.head !== link.sha ? changed("modified") : [];
			return [...moved, ...state.changes.map(prefix)];
		},
	};
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
