import { CONFIG_FILE } from "../config/load.ts";
import { blobId } from "../git/blob-id.ts";
import { FOLDER, readBlobs, verifiedRoot } from "../git/object-check.ts";
import { type ObjectReader, withObjectReader } from "../git/object-reader.ts";
import { git } from "../git/run.ts";

/**
 * The gate judges a commit by the jobs that commit declares, so the config
 * it loaded must be the commit's own: a regular file tracked at `head`
 * whose blob is byte for byte what was parsed. An uncommitted or locally
 * excluded discern.toml, a symlink, or a file edited between the load and
 * the status read cannot earn a Proof. Null means it holds; otherwise why not.
 */
export async function configNotCommitted(root: string, head: string, loaded: Uint8Array): Promise<string | null> {
	const listed = await listCommittedConfig(root, head);
	if (listed === "unreadable") return `git could not list ${CONFIG_FILE} in ${head.slice(0, 7)}`;
	return committedConfigProblem(listed, loaded);
}

/** What `commit` holds at discern.toml: its entry, null for nothing, "unreadable" when git could not tell. */
async function listCommittedConfig(root: string, commit: string): Promise<CommittedEntry | null | "unreadable"> {
	const listed = await git(["ls-tree", "-z", "--full-tree", commit, "--", CONFIG_FILE], root);
	if (listed.exitCode !== 0) return "unreadable";
	// `<mode> <type> <object>\t<path>`
	const [meta] = listed.stdout.split("\t");
	const [mode, type, object] = (meta ?? "").split(" ");
	return object ? { mode: mode ?? "", type: type ?? "", object } : null;
}

/**
 * The bytes of discern.toml as `commit` holds it (another branch's, the
 * trunk's): `absent` only when the commit's root, read and hashed, holds no such file;
 * a commit or object git could not read is `unreadable`, never taken for a
 * file that is not there (that would skip every check the file carries).
 */
export type CommittedConfigRead = { state: "absent" } | { state: "unreadable"; reason: string } | { state: "read"; text: string };

export async function readCommittedConfig(root: string, commit: string, reader?: ObjectReader): Promise<CommittedConfigRead> {
	// From the commit down, every object read back and hashed: a forged commit or tree filed under the
	// trunk's ids (a pack index a job wrote) must not choose which discern.toml passes for the trunk's.
	return withObjectReader(root, reader, async (objects) => {
		const top = await verifiedRoot(objects, commit);
		if (typeof top === "string") return { state: "unreadable", reason: top };
		const entry = top.entries.get(CONFIG_FILE);
		if (!entry) return { state: "absent" };
		// A symbolic link's blob is its target, read as the config it is not: it does not validate, as a checkout's would not.
		if (entry.mode === FOLDER || entry.mode === "160000")
			return { state: "unreadable", reason: `${CONFIG_FILE} in ${commit.slice(0, 7)} is ${entry.mode === FOLDER ? "a folder" : "a submodule"}, not a file` };
		const read = await readBlobs(objects, [entry.id]);
		const text = typeof read === "string" ? null : utf8(read[0] as Uint8Array);
		if (text === null) return { state: "unreadable", reason: `git could not read ${CONFIG_FILE} (${entry.id.slice(0, 7)}) in ${commit.slice(0, 7)}` };
		return { state: "read", text };
	});
}

/** What the commit holds at discern.toml, as `git ls-tree` lists it (null: nothing). */
export interface CommittedEntry {
	mode: string;
	type: string;
	object: string;
}

/** The same judgement on an entry already listed (the evidence index lists the commit's whole tree). */
export function committedConfigProblem(entry: CommittedEntry | null, loaded: Uint8Array): string | null {
	if (!entry) return `${CONFIG_FILE} is not committed (it may be untracked or excluded locally)`;
	const { mode, type, object } = entry;
	if (type !== "blob" || (mode !== "100644" && mode !== "100755")) {
		return `${CONFIG_FILE} is committed as ${mode === "120000" ? "a symbolic link" : `a ${type || "?"} (mode ${mode || "?"})`}, not a regular file`;
	}
	if (blobId(loaded, object.length) !== object) return `the ${CONFIG_FILE} discern read differs from the committed one`;
	return null;
}

/** Bytes as UTF-8 text, or null when they are not (a config that is not text is not read as one). */
function utf8(bytes: Uint8Array): string | null {
	try {
		return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
	} catch {
		return null;
	}
}
