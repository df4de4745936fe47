import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Captured } from "../../platform/process.ts";
import { quoteName } from "../../text/terminal.ts";
import { subtreesOf, verifiedRoot, verifiedTree, type WalkedTree } from "../object-check.ts";
import { type ObjectReader, openObjectReader } from "../object-reader.ts";
import { answerLines, unprintablePath } from "../printable-path.ts";
import { complaint, git } from "../run.ts";
import { type ChangedPath, JUDGED_SETTINGS, type WorkingState } from "../status.ts";
import { conversionsOf, entryOf, lfsPointers } from "./expected-content.ts";
import { type Checkout, fingerprint, verify } from "./file-check.ts";
import { FileJudgements } from "./file-judgements.ts";
import { guessLocation, type Location, locationOf, primedWith, sameLocation } from "./guess.ts";
import { type KnownContent, type KnownTree, nowNs, unstampedHorizon } from "./known-content.ts";
import { askGit, gitLinksOf, type HeadReading, headOfLocated, headWithRefs, type LookReads, type RefReading } from "./look-reads.ts";
import { contentTransformedFromOutside, foldersHolding } from "./outside-the-tree.ts";
import { indexExpectation, ownIndexJudge } from "./own-index.ts";
import { privateFolder } from "./private-folders.ts";
import { privateIndex } from "./private-index.ts";
import { withPrivateStore } from "./private-store.ts";
import { openSubmodule } from "./submodule-evidence.ts";
import { ignoredFoldersAsker, unlistedEntries } from "./unlisted.ts";

/**
 * Evidence that a folder holds exactly a commit's tree.
 *
 * git's own answer (`git status`) comes from the checkout's index and
 * configuration, and both can be told to stop comparing content or to
 * compare converted bytes: an fsmonitor hook, `core.ignoreStat`, stat
 * shortcuts, assume-unchanged bits, an index entry written to match an
 * edited file, a `filter` driver whose clean command prints the committed
 * blob, `core.worktree` pointing git at another folder — and a job can set
 * any of these mid-run. So discern does not ask git whether the files
 * match; it reads them. For every path of the commit's tree it checks the
 * kind and executable bit, and hashes the raw bytes into a blob id to
 * compare with the commit's (a symbolic link: its target). Where the
 * commit's own attributes convert content, it verifies without running any
 * driver: a Git LFS file against the sha256 and size in its committed
 * pointer, a built-in conversion (`text`, `eol`, `ident`,
 * `working-tree-encoding`) through `git hash-object` with configuration
 * pinned; any other filter is refused, since only its program could say
 * what the file should be. Submodules are judged the same way against the
 * commit the superproject records.
 *
 * Between looks, and from one run to the next, every tracked file's full
 * stat is compared with the one its bytes were judged at; only a file whose
 * stat changed, or whose bytes were read before it had settled, is read
 * again (file-judgements.ts, known-content.ts). A process can put an mtime
 * back, never a ctime.
 * git still answers what only it can — HEAD, the branch, untracked files —
 * with its repository and work tree named explicitly, a private index
 * holding the commit's tree, and the settings below pinned. The checkout's
 * own index must hold the commit's tree too: jobs that ask git for the list
 * of files read it.
 */
/** The settings every judgement of a tree runs git with, shared with status and worktree list (git/status.ts). */
const PINNED = JUDGED_SETTINGS;

export interface EvidenceIndex {
	/** The commit the files are judged against (what `revision` named when the index was opened). */
	commit: string;
	/** Its tree, as the commit object read back and hashed names it: the tree a Proof records. */
	tree: string;
	/**
	 * What that commit holds at a path, as `git ls-tree` lists it: a blob,
	 * a symbolic link or a submodule; a folder as `tree` (its object
	 * unknown, empty); null for nothing.
	 */
	committed(path: string): { mode: string; type: string; object: string } | null;
	/**
	 * HEAD, the branch, and every path that differs from the commit
	 * (untracked included; submodules' paths inside them), verified from the
	 * files themselves; null when git could not answer. A later look also
	 * reads the refs `watch` names, as they are when HEAD is (`watched`:
	 * null when git could not list them; absent from the first look).
	 * `deadlineS`: how long any one of the look's git reads may take before
	 * it is stopped and the look fails (0 or absent: no bound); a job can
	 * leave a FIFO where git reads its own files (`packed-refs`, `config`),
	 * and git would wait on it forever, the gate with it.
	 */
	status(options?: { watch?: readonly string[]; deadlineS?: number }): Promise<(WorkingState & { watched?: RefReading[] | null }) | null>;
	/**
	 * What the looks so far established about the files, settled (see
	 * known-content.ts), for the caller to keep for the next run; null when
	 * it holds nothing the facts it was opened with did not.
	 */
	learned(): KnownContent | null;
	close(): Promise<void>;
}

export type EvidenceOutcome =
	| { ok: true; index: EvidenceIndex }
	/** `unborn`: HEAD names no commit yet. */
	| { ok: false; reason: string; unborn?: boolean };

/**
 * Evidence for the checkout at `root` (the folder discern runs jobs in)
 * against `revision`.
 *
 * `reader`: the caller's object reader for this repository (one of its own
 * otherwise). `asked`: called once git's part of the first look is under
 * way (a read started after it does not hold it up).
 *
 * `discovered`: the repository the caller found around `root` (its git dir
 * and common dir). With it and a `reader`, HEAD's evidence does not wait on
 * `rev-parse`: the commit HEAD names to the reader is walked, the private
 * index written and git's first look asked in the repository discovered,
 * while git says where the work tree, the repository and HEAD are. Its
 * answer must agree in full (the same folders, the same commit), or what
 * was built on the guess is dropped, private folder and all, and the
 * evidence is built again from git's answer, as it is without a guess.
 */
export async function openEvidenceIndex(
	root: string,
	revision: string,
	options: {
		reader?: ObjectReader;
		discovered?: { gitDir: string; commonDir: string };
		asked?: () => void;
		/** What an earlier run established about this checkout's files, read and sealed by the caller (see `EvidenceIndex.learned`). */
		known?: Promise<KnownContent | null>;
	} = {},
): Promise<EvidenceOutcome> {
	const { reader, discovered, asked, known } = options;
	const locating = locate(root, revision);
	const guessed = revision === "HEAD" && reader && discovered ? { reader, discovered } : null;
	const guessing = guessed ? guessLocation(root, guessed.reader, guessed.discovered) : Promise.resolve(null);
	// The private folder, git's answer and the reader's: each is a wait of its own.
	const [made, guess] = await Promise.all([privateFolder(), guessing]);
	if ("failed" in made) return { ok: false, reason: made.failed };
	let { dir } = made;
	if (guess && guessed) {
		const primed = primedWith(guessed.reader, guess.objects);
		const [opened, located] = await Promise.all([
			openIn(root, revision, dir, null, {
				guess: { location: guess.location, head: locating.then(headOfLocated) },
				reader: primed,
				...(asked ? { asked } : {}),
				...(known ? { known } : {}),
			}),
			locating,
		]);
		if (sameLocation(guess.location, locationOf(located), root)) return settled(opened, dir);
		if (opened.ok) await opened.index.close();
		await rm(dir, { recursive: true, force: true });
		const again = await privateFolder();
		if ("failed" in again) return { ok: false, reason: again.failed };
		dir = again.dir;
	}
	return settled(
		await openIn(root, revision, dir, null, {
			located: await locating,
			...(reader ? { reader } : {}),
			...(asked ? { asked } : {}),
			...(known ? { known } : {}),
		}),
		dir,
	);
}

/** The outcome, whose private folder goes with it: now when refused, at its close otherwise. */
async function settled(opened: EvidenceOutcome, dir: string): Promise<EvidenceOutcome> {
	if (!opened.ok) {
		await rm(dir, { recursive: true, force: true });
		return opened;
	}
	const { commit, tree, committed, status, learned, close } = opened.index;
	return { ok: true, index: { commit, tree, committed, status, learned, close: () => close().then(() => rm(dir, { recursive: true, force: true })) } };
}

/**
 * Where git says the checkout's work tree and repository are, the commit
 * `revision` names and, for HEAD, the ref it names: the first look's HEAD is
 * this same answer, so the files are compared with exactly the commit HEAD
 * named (a second read could name another; drift checks HEAD after the jobs).
 */
function locate(root: string, revision: string): ReturnType<typeof git> {
	return git(
		[
			"rev-parse",
			"--show-toplevel",
			"--absolute-git-dir",
			"--git-common-dir",
			`${revision}^{commit}`,
			...(revision === "HEAD" ? ["--symbolic-full-name", "HEAD"] : []),
		],
		root,
	);
}

/**
 * One repository level (`name`: a submodule's path, null for the checkout); `dir` holds its private index and its submodules' folders.
 * `given.located`: what `locate(root, revision)` answered, when the caller asked it already; `given.guess`: the location to take instead,
 * with HEAD as git reads it; `given.reader`, `given.asked`, `given.known`: see `openEvidenceIndex` (a submodule's files are never known ahead).
 */
async function openIn(
	root: string,
	revision: string,
	dir: string,
	name: string | null,
	given: {
		located?: Captured;
		guess?: { location: Location; head: Promise<HeadReading> };
		reader?: ObjectReader;
		asked?: () => void;
		known?: Promise<KnownContent | null>;
	} = {},
): Promise<EvidenceOutcome> {
	const label = name ?? root;
	// git's answers name the folders one a line: a folder whose path it cannot print safely is never judged (a submodule's included).
	const unprintable = unprintablePath(root);
	if (unprintable) return { ok: false, reason: `${quoteName(label)}: ${unprintable}` };
	const located = given.guess ? null : (given.located ?? (await locate(root, revision)));
	const location = given.guess?.location ?? (located && locationOf(located));
	if (!location) {
		// The three folders, then the revision echoed back as git found no commit by it: HEAD names none yet. Any more lines: a path held a line break.
		const lines = located ? answerLines(located.stdout) : [];
		if (lines.length === 4 && lines[3] === `${revision}^{commit}`) return { ok: false, reason: "nothing is committed on this branch yet", unborn: true };
		return lines.length > 5
			? { ok: false, reason: `git names folders of ${quoteName(label)} whose paths hold a line break, so its answers cannot be read back exactly` }
			: { ok: false, reason: `git cannot read ${quoteName(label)}` };
	}
	const { top, gitDir, commonDir, commit: sha } = location;
	// A work tree moved by configuration (core.worktree, also per worktree) would have git judge one folder while jobs run in another.
	if (resolve(top) !== resolve(root))
		return { ok: false, reason: `git's work tree for ${quoteName(label)} is ${quoteName(top)}, not the folder the jobs run in` };
	// From here on git is told exactly which repository and folder: nothing a job writes into the config can move them.
	// Nothing of git's own environment discern was started with (GIT_COMMON_DIR, GIT_CONFIG_PARAMETERS, GIT_OBJECT_DIRECTORY, …) is passed on:
	// every git read of the evidence sees exactly the repository, folders and settings named here.
	const env = {
		...withoutGitVariables(process.env),
		GIT_DIR: gitDir,
		GIT_COMMON_DIR: resolve(root, commonDir),
		GIT_WORK_TREE: root,
		GIT_INDEX_FILE: join(dir, "index"),
		GIT_ATTR_NOSYSTEM: "1",
	};
	// What points git at the repository now: a later look finds the same, or git reads another repository than the one judged.
	const gitLinks = gitLinksOf(root, gitDir);
	// The current look's bound on each git read (see `status`): each read is bounded on its own.
	let deadlineS = 0;
	const bounded = () => (deadlineS > 0 ? { signal: AbortSignal.timeout(deadlineS * 1000) } : {});
	const run = (args: readonly string[], options: { input?: string } = {}) => git([...PINNED, ...args], root, { env, ...bounded(), ...options });
	// The checkout's own index, where jobs that ask git which files there are read them (own-index.ts), listed from the file named.
	const listIndex = (more: Record<string, string>) => git([...PINNED, "ls-files", "-s", "-z"], root, { env: { ...env, ...more }, ...bounded() });
	// Objects are hashed as they are read, so any reader of this repository will do; one of its own otherwise, closed with the index.
	const reader = given.reader ?? openObjectReader(root, { env });
	const ownReader = given.reader ? null : reader;

	// What an earlier run established (HEAD's evidence only): its tree saves the walk when the commit names the same one.
	const earlier = (await given.known?.catch(() => null)) ?? null;
	const walked = await walkedTree(reader, sha, earlier?.tree ?? null);
	const failed = async (reason: string): Promise<EvidenceOutcome> => {
		await ownReader?.close();
		return { ok: false, reason };
	};
	if (typeof walked === "string") return failed(`${walked} (${quoteName(label)})`);
	const entries = walked.records.map(entryOf);
	const indexFile = privateIndex(join(dir, "index"), entries, sha.length / 2);
	const indexed = await indexFile.holds();
	if (indexed !== true) return failed(`${indexed} (the commit ${sha.slice(0, 7)} in ${quoteName(label)})`);
	// The blobs git processes read themselves (attributes, converted files) come from a fresh store holding only hashed ones.
	const attributeBlobs = entries
		.filter((entry) => entry.type === "blob" && (entry.path === ".gitattributes" || entry.path.endsWith("/.gitattributes")))
		.map((entry) => entry.blob);
	const runIn =
		(storeEnv: Record<string, string>) =>
		(args: readonly string[], options: { input?: string } = {}) =>
			git([...PINNED, ...args], root, { env: { ...env, ...storeEnv }, ...bounded(), ...options });
	/** checkout-index of converted files, from a private repository of their hashed blobs and the attributes'. */
	const checkout: Checkout = (files, folder) =>
		withPrivateStore(
			dir,
			reader,
			[...attributeBlobs, ...files.map((entry) => entry.blob)],
			(storeEnv) =>
				runIn(storeEnv)(["checkout-index", "-f", "-z", "--stdin", `--prefix=${folder}/`], { input: `${files.map((entry) => entry.path).join("\0")}\0` }),
			// A git dir of its own: no filter driver the repository's configuration defines can run (see withPrivateStore).
			{ repository: { idBytes: sha.length / 2 } },
		);

	const tracked = entries.map((entry) => entry.path);
	// The first look's questions to git need only the private index: asked now, with the attribute checks, not one wait later.
	// HEAD is what locate read with the commit (HEAD's own evidence); a submodule's HEAD is asked, its revision being the recorded commit.
	const headRead = given.guess?.head ?? (located ? Promise.resolve(headOfLocated(located)) : null);
	const readStaged = ownIndexJudge({
		path: join(gitDir, "index"),
		expected: () => indexExpectation(entries),
		remembered: earlier?.tree.id === walked.tree ? earlier.index : null,
		list: listIndex,
		alone: (use) => withPrivateStore(dir, reader, [], use, { repository: { idBytes: sha.length / 2 } }),
	});
	let firstLook: LookReads | null = askGit(run, revision === "HEAD" ? headRead : null, readStaged);
	/** The sha256 of the checkout's index as the last look found it holding exactly the commit's entries (null: it did not). */
	let cleanIndex: string | null = null;
	// The branch HEAD named at the last look (the first sets it): later looks read HEAD through it (see `headWithRefs`).
	let branchRef: string | null = null;
	const reads = [
		// The .gitattributes blobs check-attr reads through the private index, hashed: a forged one could drop a conversion.
		// Without one nothing converts, and git need not be asked: global and system attributes are off, and
		// info/attributes setting a converting one is refused just below. Every file must then hold its blob's bytes.
		attributeBlobs.length === 0 ? (true as const) : withPrivateStore(dir, reader, attributeBlobs, (storeEnv) => conversionsOf(runIn(storeEnv), entries)),
		contentTransformedFromOutside(run, resolve(root, commonDir), tracked),
	] as const;
	given.asked?.();
	const files = entries.filter((entry) => entry.check !== "submodule");
	// Every folder of the tree, those holding only a submodule too (the submodule itself is its own evidence's).
	const folders = foldersHolding(tracked);
	const submodulePaths = new Set(entries.filter((entry) => entry.check === "submodule").map((entry) => entry.path));
	const ignoredFolders = ignoredFoldersAsker(run);
	/** Every tracked file's stat, what no untracked listing shows, and what points git at the repository, as they are from `lookFrom` on. */
	const readFiles = () => {
		const lookFrom = nowNs();
		const replaced: string[] = [];
		return Promise.all([
			fingerprint(root, files),
			unlistedEntries(root, folders, submodulePaths, ignoredFolders, undefined, (folder) => replaced.push(folder)),
			gitLinksOf(root, gitDir),
		]).then(([stats, unlisted, linksNow]) => ({ lookFrom, replaced, stats, unlisted, linksNow }));
	};
	// The first look's own reading of the files starts now, while git answers what opening asks (the longest wait here):
	// it reads nothing a later step decides (which files convert is known only once they are verified, in the look).
	let firstFiles: ReturnType<typeof readFiles> | null = readFiles();
	void firstFiles.catch(() => undefined);
	const [conversions, outside] = await Promise.all(reads);
	// Refused: the first look's git processes end before the private index goes.
	const refuse = async (reason: string): Promise<EvidenceOutcome> => {
		await settleFirstLook();
		return failed(reason);
	};
	const settleFirstLook = async () => {
		if (firstLook) await Promise.all([firstLook.head, firstLook.untracked, firstLook.staged]);
		if (firstFiles) await firstFiles.catch(() => undefined);
	};
	if (typeof conversions === "string" || outside.length > 0) {
		return refuse(
			`git is told to see the files differently from the commit: ${[...(typeof conversions === "string" ? [conversions] : []), ...outside].join("; ")}`,
		);
	}
	const pointers = await lfsPointers(
		reader,
		entries.filter((entry) => entry.check === "lfs"),
	);
	if (typeof pointers === "string") return refuse(pointers);

	const gitlinks = entries.filter((entry) => submodulePaths.has(entry.path));
	const submodules = await Promise.all(gitlinks.map((link, n) => openSubmodule(root, link, join(dir, `submodule-${n}`), name, openIn)));
	const refused = submodules.flatMap((sub) => (sub.refused ? [sub.refused] : []));
	const closeSubmodules = () => Promise.all(submodules.map((sub) => sub.close()));
	if (refused.length > 0) {
		await closeSubmodules();
		return refuse(refused.join("; "));
	}

	// Facts kept from an earlier run hold under the same conversions only (the commit's attributes and the hash), and only
	// where a stat can vouch for bytes at all (known-content.ts).
	const context = `${sha.length}:${[...attributeBlobs].sort().join(",")}`;
	const judgements = new FileJudgements(files, context, unstampedHorizon(root), earlier);
	// Open just asked what the first look would: only later looks ask again.
	let outsideAsked = true;
	const index: EvidenceIndex = {
		commit: sha,
		tree: walked.tree,
		committed(path) {
			const entry = entries.find((candidate) => candidate.path === path);
			if (entry) return { mode: entry.mode, type: entry.type, object: entry.blob };
			return entries.some((candidate) => candidate.path.startsWith(`${path}/`)) ? { mode: "040000", type: "tree", object: "" } : null;
		},
		async status({ watch = [], deadlineS: bound = 0 } = {}) {
			deadlineS = bound;
			// Git's part of the first look was asked while the index was opened; every later look asks anew, of an index
			// rebuilt if anything (a job: it is a file in the temp folder) changed it since.
			if (!firstLook && (await indexFile.holds()) !== true) return null;
			const reads = firstLook ?? askGit(run, branchRef ? headWithRefs(run, branchRef, watch) : null, readStaged);
			firstLook = null;
			// Asked before the files are read, not after: each is a wait on other processes.
			const insideAsked = Promise.all(submodules.map((sub) => sub.changes(bound)));
			// A job may write attributes or ignore rules mid-run: what was refused at the start is refused at every look.
			const outsideRead = outsideAsked ? Promise.resolve([]) : contentTransformedFromOutside(run, resolve(root, commonDir), tracked);
			outsideAsked = false;
			// Awaited below: a failure surfaces there, never as unhandled while the files are read.
			for (const pending of [insideAsked, outsideRead]) void pending.catch(() => undefined);
			const { lookFrom, replaced, stats, unlisted, linksNow } = await (firstFiles ?? readFiles());
			firstFiles = null;
			const suspects = judgements.suspects(stats, replaced);
			const [found, head, untracked, stagedRead, inside, outsideNow] = await Promise.all([
				verify(root, suspects, pointers, checkout, dir, stats),
				reads.head,
				reads.untracked,
				reads.staged,
				insideAsked,
				outsideRead,
			]);
			if (found === null || unlisted === null || untracked.exitCode !== 0 || inside.some((changes) => changes === null)) return null;
			// An index git cannot read (or a read stopped at the look's bound) is one no job can be said to have read as committed.
			const staged = stagedRead.changes ?? [
				{ path: `(git could not read the checkout's index${stagedRead.complaint})`, kind: "modified" as const, staged: true },
			];
			cleanIndex = stagedRead.clean;
			// A folder git could not open (no read permission) is one it never looked in: a warning, with exit 0.
			const unlooked = untracked.stderr.trim() !== "" ? [`(git could not look for untracked files${complaint(untracked.stderr)})`] : [];
			judgements.record(suspects, found, stats, lookFrom);
			branchRef = head.ref?.startsWith("refs/heads/") ? head.ref : null;
			const changes: ChangedPath[] = [
				...[...judgements.differing].sort().map((path) => ({ path, kind: found.get(path) ?? "modified", staged: false })),
				...untracked.stdout
					.split("\0")
					.filter((path) => path !== "")
					.map((path) => ({ path, kind: "untracked" as const, staged: false })),
				...unlisted.filter((path) => !judgements.differing.has(path)).map((path) => ({ path, kind: "untracked" as const, staged: false })),
				...staged,
				...inside.flatMap((changes) => changes ?? []),
				...[...outsideNow.map((problem) => `(${problem})`), ...unlooked].map((path) => ({ path, kind: "modified" as const, staged: false })),
				...(linksNow === (await gitLinks)
					? []
					: [{ path: "(.git or its commondir was changed: git here reads another repository now)", kind: "modified" as const, staged: false }]),
			];
			return {
				head: head.sha,
				branch: branchRef ? branchRef.slice("refs/heads/".length) : null,
				changes,
				...(head.watched === undefined ? {} : { watched: head.watched }),
			};
		},
		learned: () => {
			const facts = judgements.learned(walked.tree !== earlier?.tree.id || cleanIndex !== earlier.index);
			return facts && { context, tree: { id: walked.tree, records: walked.records, folders: walked.folders }, index: cleanIndex, files: facts };
		},
		// A first look never taken still has git processes reading the private index: they end before it goes.
		close: async () => {
			await settleFirstLook();
			await Promise.all([ownReader?.close(), closeSubmodules()]);
		},
	};
	return { ok: true, index };
}

/**
 * The commit's tree, walked from its hashed objects (git's own listing would
 * believe the store); with `kept`, an earlier walk kept sealed between runs
 * (proof/content-ids.ts), whose subtrees are taken where the commit's tree
 * holds the same ones (a tree's id fixes every record below it), and all of
 * it when the commit names that very tree.
 */
async function walkedTree(reader: ObjectReader, commit: string, kept: KnownTree | null): Promise<WalkedTree | string> {
	if (!kept) return verifiedTree(reader, commit);
	const root = await verifiedRoot(reader, commit);
	if (typeof root === "string") return root;
	if (root.tree === kept.id) return { tree: root.tree, records: [...kept.records], folders: [...kept.folders] };
	return verifiedTree(reader, commit, subtreesOf(kept));
}

/** The environment without git's own variables. */
function withoutGitVariables(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
	return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith("GIT_")));
}
