import { CONFIG_FILE } from "../config/load.ts";
import { blobId } from "../git/blob-id.ts";
import { git } from "../git/run.ts";

/**
 * The gate judges a commit by the jobs that commit declares, so the config
 * it loaded must be the commit's own: a regular file tracked at `head`
 * whose blob is byte for byte what was parsed. An uncommitted or locally
 * excluded discern.toml, a symlink, or a file edited between the load and
 * the status read cannot earn a Proof. Null means it holds; otherwise why not.
 */
export async function configNotCommitted(root: string, head: string, loaded: Uint8Array): Promise<string | null> {
	const listed = await git(["ls-tree", "-z", "--full-tree", head, "--", CONFIG_FILE], root);
	if (listed.exitCode !== 0) return `git could not list ${CONFIG_FILE} in ${head.slice(0, 7)}`;
	// `<mode> <type> <object>\t<path>`
	const [meta] = listed.stdout.split("\t");
	const [mode, type, object] = (meta ?? "").split(" ");
	return committedConfigProblem(object ? { mode: mode ?? "", type: type ?? "", object } : null, loaded);
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
