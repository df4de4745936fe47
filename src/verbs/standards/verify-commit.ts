import { CONFIG_FILE } from "../../config/load.ts";
import { nulSeparated } from "../../git/nul-list.ts";
import { type VerifiedRoot, verifiedRoot } from "../../git/object-check.ts";
import { openObjectReader } from "../../git/object-reader.ts";
import { git, gitLine } from "../../git/run.ts";
import { clip } from "../../text/clip.ts";
import { quoteName } from "../../text/terminal.ts";

/** What git committed for a pin, checked against what the pin meant to commit. */
export type PinCommit = { ok: true; head: string } | { ok: false; head: string | null; problems: string[] };

/**
 * `git commit` runs the repository's hooks, and a hook (one the project
 * keeps, or one a gate job planted in the hooks folder while the pin
 * measured) can add files to the commit, amend it, or move HEAD. A Proof
 * may carry over only to the commit the pin meant: one parent, the commit
 * it measured; discern.toml the only path changed; its blob the bytes the
 * pin wrote; HEAD still on the branch. Anything else is reported, never
 * repaired: the commit stays for a person to inspect.
 */
export async function verifyPinCommit(root: string, proven: string, branch: string, written: string): Promise<PinCommit> {
	const head = await gitLine(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], root);
	if (!head) return { ok: false, head: null, problems: ["git cannot read HEAD after the commit"] };
	const problems: string[] = [];
	// The bytes the pin wrote are hashed as they are and as git's attributes (eol, a clean filter) would store them.
	const hashed = (args: string[]) =>
		git(["hash-object", ...args, "--stdin"], root, { input: written }).then((result) => (result.exitCode === 0 ? result.stdout.trim() : null));
	const reader = openObjectReader(root);
	const [parents, symbolic, changed, blob, asWritten, asStored, before, after] = await Promise.all([
		gitLine(["rev-list", "--parents", "-n", "1", head], root),
		gitLine(["symbolic-ref", "--quiet", "HEAD"], root),
		// Against the commit measured, not HEAD^: whatever HEAD holds beyond the pin is named, wherever it came from.
		git(["diff-tree", "--no-commit-id", "-r", "-z", "--name-only", proven, head], root),
		gitLine(["rev-parse", "--verify", "--quiet", `${head}:${CONFIG_FILE}`], root),
		hashed([]),
		hashed([`--path=${CONFIG_FILE}`]),
		// The same questions of objects read back and hashed: git's own answers above trust an object store a hook can write.
		verifiedRoot(reader, proven),
		verifiedRoot(reader, head),
	]).finally(() => reader.close());
	const parentList = parents?.split(" ").slice(1) ?? null;
	if (head === proven) problems.push(`HEAD is still ${proven.slice(0, 7)}, the commit the pin measured`);
	else if (!parentList) problems.push("git cannot read the new commit's parents");
	else if (parentList.length !== 1) problems.push(`the commit has ${parentList.length} parents, not one`);
	else if (parentList[0] !== proven) problems.push(`its parent is ${parentList[0]?.slice(0, 7)}, not ${proven.slice(0, 7)}, the commit the pin measured`);
	if (symbolic !== `refs/heads/${branch}`) problems.push(symbolic ? `HEAD moved to ${quoteName(symbolic.replace(/^refs\/heads\//, ""))}` : "HEAD is detached");
	const paths = changed.exitCode === 0 ? nulSeparated(changed.stdout) : null;
	const extra = paths?.filter((path) => path !== CONFIG_FILE) ?? [];
	if (!paths) problems.push("git cannot list what the commit changes");
	else if (extra.length > 0)
		problems.push(
			`it holds more than the pin: ${extra
				.slice(0, 10)
				.map((path) => quoteName(clip(path, 200)))
				.join(", ")}${extra.length > 10 ? ` and ${extra.length - 10} more` : ""}`,
		);
	else if (!paths.includes(CONFIG_FILE)) problems.push(`it does not change ${CONFIG_FILE}`);
	if (!blob || (blob !== asWritten && blob !== asStored)) problems.push(`its ${CONFIG_FILE} is not the file the pin wrote`);
	const differs = typeof before === "string" ? before : typeof after === "string" ? after : rootDifference(before, after, proven, blob);
	if (differs && problems.length === 0) problems.push(differs);
	return problems.length === 0 ? { ok: true, head } : { ok: false, head, problems };
}

/**
 * From hashed objects: the pin commit's one parent is the measured commit and
 * its root holds the same entries, discern.toml aside (the pin's blob). Equal
 * ids below the root are equal trees, so the root is all there is to compare.
 */
function rootDifference(before: VerifiedRoot, after: VerifiedRoot, proven: string, blob: string | null): string | null {
	if (after.parents.length !== 1 || after.parents[0] !== proven) return `its parent, read back from the object store, is not ${proven.slice(0, 7)}`;
	const names = new Set([...before.entries.keys(), ...after.entries.keys()]);
	const other = [...names].filter(
		(name) =>
			name !== CONFIG_FILE &&
			(before.entries.get(name)?.id !== after.entries.get(name)?.id || before.entries.get(name)?.mode !== after.entries.get(name)?.mode),
	);
	if (other.length > 0)
		return `it holds more than the pin: ${other
			.slice(0, 10)
			.map((name) => quoteName(clip(name, 200)))
			.join(", ")} (read back from the object store)`;
	if (after.entries.get(CONFIG_FILE)?.id !== blob) return `its ${CONFIG_FILE}, read back from the object store, is not the file the pin wrote`;
	return null;
}
