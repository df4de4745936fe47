import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { nulSeparated } from "../../git/nul-list.ts";
import { filesHiddenFromStatus } from "../../git/repository.ts";
import { git } from "../../git/run.ts";
import { parsePorcelainV2 } from "../../git/status.ts";
import type { ProofRecord } from "../../proof/record.ts";
import { clip } from "../../text/clip.ts";
import { firstLine } from "../../text/first-line.ts";
import { quoteName } from "../../text/terminal.ts";
import { checkoutSubmodulesWithWork } from "../../worktree/submodule-work.ts";

export const NOTE_REF = "refs/notes/discern";

/**
 * Settings pinned on every git call accept makes that writes a ref or a
 * file, or judges a checkout whose files move, beside what every git call
 * pins (git/run.ts: no hooks, no fsmonitor): git looks at the files
 * themselves — no untracked cache or stat shortcut the checkout's own config
 * could use to report an edited file as unchanged (and have it overwritten).
 */
export const PINNED = ["core.untrackedCache=false", "core.checkStat=default", "core.trustctime=true", "core.ignoreStat=false"].flatMap((setting) => [
	"-c",
	setting,
]);

/** git with {@link PINNED}: for every ref or file accept writes, and every judgement of a checkout that moves. */
export function pinnedGit(args: readonly string[], cwd: string, options: Parameters<typeof git>[2] = {}): ReturnType<typeof git> {
	return git([...PINNED, ...args], cwd, options);
}

/**
 * Why a checkout on the trunk cannot follow it from `from` to `to`, or null:
 * it must be tracked-clean (judged with {@link PINNED}: no fsmonitor hook or
 * stat shortcut of its own config), hide no tracked file from status, and git's own
 * dry run of the two-tree move must pass (no untracked or ignored file in
 * the way). Asked before the trunk moves, so a refusal changes nothing.
 */
export async function checkoutProblem(path: string, from: string, to: string, signal?: AbortSignal): Promise<{ interrupted: boolean; message: string } | null> {
	const problem = await checkoutProblemSentence(path, from, to);
	// A git killed by the same Ctrl-C that aborted the signal answers like a failing one: the signal says which it was.
	return problem ? { interrupted: signal?.aborted === true, message: problem } : null;
}

async function checkoutProblemSentence(path: string, from: string, to: string): Promise<string | null> {
	// A submodule's HEAD against its gitlink is git's to read (`dirty`: without entering it); what is in it, discern's, without
	// its own configuration: git's status inside a submodule would run the filters that repository names (submodule-work.ts).
	const [status, hidden, trial, submodules] = await Promise.all([
		pinnedGit(["status", "--porcelain=v2", "-z", "--untracked-files=no", "--ignore-submodules=dirty"], path),
		filesHiddenFromStatus(path),
		pinnedGit(["read-tree", "-m", "-u", "-n", from, to], path),
		checkoutSubmodulesWithWork(path),
	]);
	if (status.exitCode !== 0 || submodules === null) return `git could not report the state of the checkout at ${clip(quoteName(path))}`;
	const listed = parsePorcelainV2(status.stdout).changes.map((change) => change.path);
	const changes = [...listed, ...submodules.filter((link) => !listed.includes(link))].map((changed) => ({ path: changed }));
	if (changes.length > 0) {
		const names = changes
			.slice(0, 10)
			.map((change) => quoteName(change.path))
			.join(", ");
		return `the checkout at ${clip(quoteName(path))} is on the trunk and has uncommitted changes to tracked files (${names}${changes.length > 10 ? ` and ${changes.length - 10} more` : ""})`;
	}
	// Null is git failing (or killed), not a finding: never reported as hidden files.
	if (hidden === null) return `git could not list the tracked files of the checkout at ${clip(quoteName(path))} (it failed or was stopped)`;
	if (hidden.length > 0) return `the checkout at ${clip(quoteName(path))} is on the trunk and git is told to ignore changes to some of its tracked files`;
	if (trial.exitCode !== 0)
		return `the checkout at ${clip(quoteName(path))} is on the trunk and its files cannot follow it: ${clip(firstLine(trial.stderr) || `git read-tree exited ${trial.exitCode}`)}`;
	return null;
}

/**
 * Move a checkout's index and files from `from` to `to` after its branch
 * moved: a two-tree read-tree, which refuses rather than overwrite a local
 * change or an untracked file. Null when done (or already done).
 */
export async function moveCheckout(path: string, from: string, to: string): Promise<string | null> {
	const already = await pinnedGit(["diff-index", "--cached", "--quiet", to, "--"], path);
	if (already.exitCode === 0) {
		const files = await pinnedGit(["diff-files", "--quiet", "--ignore-submodules=dirty"], path);
		if (files.exitCode === 0) return null;
	}
	// A tracked file git is told not to look at could hold an edit read-tree would overwrite.
	const hidden = await filesHiddenFromStatus(path);
	if (hidden === null)
		return `the files of the checkout at ${clip(quoteName(path))} did not follow the trunk: git could not list its tracked files (it failed or was stopped)`;
	if (hidden.length > 0)
		return `the files of the checkout at ${clip(quoteName(path))} did not follow the trunk: git is told to ignore changes to some of its tracked files (assume-unchanged or skip-worktree)`;
	// In a process group of its own, as the landing's merge (fast-forward.ts): a Ctrl-C does not stop it halfway through the files.
	const moved = await pinnedGit(["read-tree", "-m", "-u", from, to], path, { ownGroup: true });
	return moved.exitCode === 0
		? null
		: `the files of the checkout at ${clip(quoteName(path))} did not follow the trunk: ${clip(firstLine(moved.stderr) || `exit ${moved.exitCode}`)}`;
}

/**
 * The Proof as one line: an in-toto Statement v1 (subject = the landed
 * commit, predicate = the Proof record) in an unsigned DSSE envelope.
 */
export function proofNote(proof: ProofRecord, subject: string): string {
	const statement = {
		_type: "https://in-toto.io/Statement/v1",
		subject: [{ name: subject, digest: { gitCommit: proof.head } }],
		predicateType: "https://discern.sh/proof/v1",
		predicate: proof,
	};
	return JSON.stringify({
		payloadType: "application/vnd.in-toto+json",
		payload: Buffer.from(JSON.stringify(statement), "utf8").toString("base64"),
		signatures: [],
	});
}

/**
 * Add the Proof note, never overwriting one: a note already there is this
 * landing's own when it is the same note (an accept interrupted after
 * writing it); any other note on that commit (another branch's Proof) is kept.
 */
export async function writeNote(root: string, sha: string, note: string): Promise<string | null> {
	const unsafe = await noteRefProblem(root);
	if (unsafe) return `the Proof note was not written: ${unsafe}`;
	const existing = await git(["notes", `--ref=${NOTE_REF}`, "show", sha], root);
	if (existing.exitCode === 0) {
		return existing.stdout.trim() === note.trim()
			? null
			: `${sha.slice(0, 7)} already carries another Proof note under ${NOTE_REF}; it was kept, not overwritten`;
	}
	const added = await pinnedGit(["notes", `--ref=${NOTE_REF}`, "add", "-F", "-", sha], root, { input: `${note}\n` });
	return added.exitCode === 0 ? null : `the Proof note could not be written: ${clip(firstLine(added.stderr) || `exit ${added.exitCode}`)}`;
}

/**
 * Why the Proof note cannot be written safely under {@link NOTE_REF}, or
 * null: \`git notes add\` commits onto whatever the ref resolves to, so a
 * notes ref made a symbolic ref (to the trunk, say), or pointed at a
 * branch's tip, would put a notes commit on that branch. It must be absent,
 * or a plain ref that no branch head shares.
 */
export async function noteRefProblem(root: string): Promise<string | null> {
	const symbolic = await git(["symbolic-ref", "-q", NOTE_REF], root);
	if (symbolic.exitCode === 0) return `${NOTE_REF} is a symbolic ref to \`${clip(symbolic.stdout.trim())}\`, and a note written through it would commit there`;
	if (symbolic.exitCode !== 1) return `git could not read ${NOTE_REF}`;
	const [value, heads] = await Promise.all([
		git(["rev-parse", "--verify", "--quiet", NOTE_REF], root),
		git(["for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/"], root),
	]);
	if (value.exitCode === 1) return null;
	if (value.exitCode !== 0 || heads.exitCode !== 0) return `git could not read ${NOTE_REF}`;
	const sha = value.stdout.trim();
	const branch = heads.stdout.split("\n").find((line) => line.startsWith(`${sha} `));
	return branch ? `${NOTE_REF} points at the tip of the branch \`${clip(branch.slice(sha.length + 1))}\` (${sha.slice(0, 7)}), not at notes of its own` : null;
}

/** The ref-lock file git leaves when a ref update of `trunk` died midway (files backend); null when there is none. */
export async function staleRefLock(commonDir: string, trunk: string): Promise<string | null> {
	const path = join(commonDir, "refs", "heads", `${trunk}.lock`);
	return (await lstat(path).catch(() => null)) ? path : null;
}

/** Whether `refs/heads/<trunk>` is a symbolic ref (to another branch): null when git could not say. */
export async function isSymbolicBranch(root: string, trunk: string): Promise<boolean | null> {
	const result = await git(["symbolic-ref", "-q", `refs/heads/${trunk}`], root);
	return result.exitCode === 0 ? true : result.exitCode === 1 ? false : null;
}

const IN_PROGRESS: [string, string][] = [
	["rebase-merge", "a rebase"],
	["rebase-apply", "a rebase (or `git am`)"],
	["MERGE_HEAD", "a merge"],
	["CHERRY_PICK_HEAD", "a cherry-pick"],
	["REVERT_HEAD", "a revert"],
	["BISECT_LOG", "a bisect"],
];

/**
 * What a checkout is in the middle of on the trunk (a rebase, merge,
 * cherry-pick, revert or bisect), or null: read from its git dir. A
 * checkout detached by a rebase or bisect of the trunk counts too (git
 * names the branch it will return to in `head-name` / `BISECT_START`).
 */
export async function operationOnTrunk(gitDir: string, branch: string | null, trunk: string): Promise<string | null> {
	const exists = async (name: string) => (await lstat(join(gitDir, name)).catch(() => null)) !== null;
	const text = async (name: string) => (await readFile(join(gitDir, name), "utf8").catch(() => "")).trim();
	if (branch === trunk) {
		for (const [name, what] of IN_PROGRESS) if (await exists(name)) return what;
		return null;
	}
	if (branch !== null) return null;
	for (const name of ["rebase-merge", "rebase-apply"]) {
		const headName = await text(join(name, "head-name"));
		if (headName === `refs/heads/${trunk}`) return "a rebase";
	}
	const bisected = await text("BISECT_START");
	if (bisected === trunk || bisected === `refs/heads/${trunk}`) return "a bisect";
	return null;
}

/**
 * Files in the way of what the landing adds to a checkout that moves with
 * the trunk: for every path the trunk did not track at `from` and does at
 * `to`, anything at that path (an ignored `.env`, an untracked file), a
 * non-folder where one of its parent folders goes (ENOTDIR), or an existing
 * ignored folder it would land in. git's own checkout overwrites ignored
 * files; this refuses instead, naming them. Null when git could not say.
 */
export async function filesInTheWay(checkout: string, from: string, to: string): Promise<string[] | null> {
	const [added, tracked] = await Promise.all([
		pinnedGit(["diff", "--name-only", "-z", "--no-renames", "--diff-filter=A", from, to, "--"], checkout),
		pinnedGit(["ls-tree", "-r", "-t", "-z", "--name-only", "--full-tree", from], checkout),
	]);
	if (added.exitCode !== 0 || tracked.exitCode !== 0) return null;
	const before = new Set(nulSeparated(tracked.stdout));
	const blocked = new Set<string>();
	const folders = new Set<string>();
	for (const path of nulSeparated(added.stdout)) {
		const parts = path.split("/");
		for (let depth = 1; depth < parts.length; depth++) {
			const parent = parts.slice(0, depth).join("/");
			if (before.has(parent)) continue;
			const found = await lstat(join(checkout, parent)).catch((error: NodeJS.ErrnoException) => (error.code === "ENOTDIR" ? "notdir" : null));
			if (found === null) break;
			if (found === "notdir" || !found.isDirectory()) {
				blocked.add(parent);
				break;
			}
			folders.add(parent);
		}
		const here = await lstat(join(checkout, path)).catch((error: NodeJS.ErrnoException) => (error.code === "ENOTDIR" ? "notdir" : null));
		if (here !== null && here !== "notdir") blocked.add(path);
	}
	if (folders.size > 0) {
		// An existing folder git ignores (a `build/`, a `.venv/`) is the owner's: nothing lands inside it.
		const ignored = await pinnedGit(["check-ignore", "-z", "--stdin"], checkout, { input: [...folders].join("\0") });
		if (ignored.exitCode > 1) return null;
		for (const folder of nulSeparated(ignored.stdout)) if (!before.has(folder)) blocked.add(`${folder}/`);
	}
	return [...blocked].sort();
}
