import type { ProofRecord } from "../../gate/state.ts";
import { filesHiddenFromStatus } from "../../git/repository.ts";
import { git, gitLine } from "../../git/run.ts";
import { parsePorcelainV2 } from "../../git/status.ts";
import { clip } from "../../text/clip.ts";
import { quoteName } from "../../text/terminal.ts";

export const NOTE_REF = "refs/notes/discern";

/** A commit's full sha, or null. */
export function commitOf(root: string, revision: string): Promise<string | null> {
	return gitLine(["rev-parse", "--verify", "--quiet", "--end-of-options", `${revision}^{commit}`], root);
}

/** Whether `ancestor` is reachable from `descendant`; null when git could not say. */
export async function isAncestor(root: string, ancestor: string, descendant: string): Promise<boolean | null> {
	const result = await git(["merge-base", "--is-ancestor", ancestor, descendant], root);
	return result.exitCode === 0 ? true : result.exitCode === 1 ? false : null;
}

/**
 * Why a checkout on the trunk cannot follow it from `from` to `to`, or null:
 * it must be tracked-clean, hide no tracked file from status, and git's own
 * dry run of the two-tree move must pass (no untracked or ignored file in
 * the way). Asked before the trunk moves, so a refusal changes nothing.
 */
export async function checkoutProblem(path: string, from: string, to: string): Promise<string | null> {
	const [status, hidden, trial] = await Promise.all([
		git(["status", "--porcelain=v2", "-z", "--untracked-files=no", "--ignore-submodules=none"], path),
		filesHiddenFromStatus(path),
		git(["read-tree", "-m", "-u", "-n", from, to], path),
	]);
	if (status.exitCode !== 0) return `git could not report the state of the checkout at ${clip(quoteName(path))}`;
	const changes = parsePorcelainV2(status.stdout).changes;
	if (changes.length > 0) {
		const names = changes.slice(0, 10).map((change) => quoteName(change.path)).join(", ");
		return `the checkout at ${clip(quoteName(path))} is on the trunk and has uncommitted changes to tracked files (${names}${changes.length > 10 ? ` and ${changes.length - 10} more` : ""})`;
	}
	if (hidden === null || hidden.length > 0) return `the checkout at ${clip(quoteName(path))} is on the trunk and git is told to ignore changes to some of its tracked files`;
	if (trial.exitCode !== 0) return `the checkout at ${clip(quoteName(path))} is on the trunk and its files cannot follow it: ${clip(firstLine(trial.stderr) || `git read-tree exited ${trial.exitCode}`)}`;
	return null;
}

/**
 * Move a checkout's index and files from `from` to `to` after its branch
 * moved: a two-tree read-tree, which refuses rather than overwrite a local
 * change or an untracked file. Null when done (or already done).
 */
export async function moveCheckout(path: string, from: string, to: string): Promise<string | null> {
	const already = await git(["diff-index", "--cached", "--quiet", to, "--"], path);
	if (already.exitCode === 0) {
		const files = await git(["diff-files", "--quiet"], path);
		if (files.exitCode === 0) return null;
	}
	const moved = await git(["read-tree", "-m", "-u", from, to], path);
	return moved.exitCode === 0 ? null : `the files of the checkout at ${clip(quoteName(path))} did not follow the trunk: ${clip(firstLine(moved.stderr) || `exit ${moved.exitCode}`)}`;
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
	return JSON.stringify({ payloadType: "application/vnd.in-toto+json", payload: Buffer.from(JSON.stringify(statement), "utf8").toString("base64"), signatures: [] });
}

export async function writeNote(root: string, sha: string, note: string): Promise<string | null> {
	const added = await git(["notes", `--ref=${NOTE_REF}`, "add", "-f", "-F", "-", sha], root, { input: `${note}\n` });
	return added.exitCode === 0 ? null : `the Proof note could not be written: ${clip(firstLine(added.stderr) || `exit ${added.exitCode}`)}`;
}

export function firstLine(text: string): string {
	return text.trim().split("\n")[0] ?? "";
}
