import { firstLine } from "../text/first-line.ts";
import { nulSeparated } from "./nul-list.ts";
import { git } from "./run.ts";

/**
 * What `git merge <incoming>` would write into the worktree, told before it
 * runs: every path its result holds differently from HEAD, and every
 * conflicted path (a modify/delete's kept side, a renamed path, a side moved
 * aside as `path~HEAD`, a file directory-rename detection moved). `mergeArgs`
 * are settings the merge must run with for the answer to hold.
 */
export type MergeWrites =
	| { kind: "told"; paths: string[]; mergeArgs: readonly string[] }
	/** git would not merge these at all (unrelated histories, a missing object): its own words. */
	| { kind: "refused"; reason: string };

/**
 * Asks `git merge-tree --write-tree` (git 2.38+), which runs the merge
 * machinery `git merge` runs (the same config, renames, directory renames) on
 * objects only. `incoming` must be spelled as the merge will spell it: git
 * names a side moved aside after it (`path~<incoming>`). On an older git,
 * `estimatedMergeWrites`.
 */
export async function mergeWrites(root: string, incoming: string): Promise<MergeWrites> {
	const told = await git(["merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", "HEAD", incoming], root);
	if (told.exitCode === 129) return estimatedMergeWrites(root, incoming);
	const [tree, ...conflicted] = nulSeparated(told.stdout);
	if ((told.exitCode !== 0 && told.exitCode !== 1) || !tree) return { kind: "refused", reason: gitSaid(told.stderr) };
	// Deletions left out: what the merge removes is tracked, and the tree is committed.
	const changed = await git(["diff-tree", "-r", "-z", "--no-renames", "--name-only", "--diff-filter=d", "HEAD", tree, "--"], root);
	if (changed.exitCode !== 0) return { kind: "refused", reason: gitSaid(changed.stderr) };
	// merge-tree always merges with ort; `pull.twohead` (which `git merge` reads too) could pick another strategy.
	return { kind: "told", paths: [...new Set([...nulSeparated(changed.stdout), ...conflicted])].sort(), mergeArgs: ["-c", "pull.twohead=ort"] };
}

/**
 * A git too old for `merge-tree --write-tree` cannot say where directory-rename
 * detection would move a file, so the merge runs without it
 * (`merge.directoryRenames=false`, git's behaviour before 2.18) and the answer
 * is a superset: every path the incoming side holds differently from HEAD,
 * and each such path moved aside under either side's name.
 */
export async function estimatedMergeWrites(root: string, incoming: string): Promise<MergeWrites> {
	const [present, gone] = await Promise.all([
		git(["diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", "HEAD", incoming, "--"], root),
		git(["diff", "--name-only", "-z", "--no-renames", "--diff-filter=D", "HEAD", incoming, "--"], root),
	]);
	if (present.exitCode !== 0 || gone.exitCode !== 0) return { kind: "refused", reason: gitSaid(present.stderr || gone.stderr) };
	const incomingPaths = nulSeparated(present.stdout);
	const aside = [...incomingPaths, ...nulSeparated(gone.stdout)].flatMap((path) => [`${path}~HEAD`, `${path}~${incoming.replaceAll("/", "_")}`]);
	return { kind: "told", paths: [...new Set([...incomingPaths, ...aside])].sort(), mergeArgs: ["-c", "merge.directoryRenames=false"] };
}

/** git's complaint, not the hints it prints before it (a deprecation notice would hide why it stopped). */
function gitSaid(stderr: string): string {
	const lines = stderr.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("hint:"));
	const complaint = lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? "";
	return firstLine(complaint.replace(/^(fatal|error):\s*/, "")) || "git could not work out the merge";
}
