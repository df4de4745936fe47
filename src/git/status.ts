/**
 * Parse `git status --porcelain=v2 --branch -z`: branch, HEAD, and every
 * changed path with what happened to it.
 */
/**
 * The settings every judgement of "is this tree the commit?" runs git with:
 * done's evidence (git/evidence/evidence.ts) and the clean that `status`,
 * `worktree list`, drop and prune show (worktree/tree-work.ts), so that no
 * view calls a tree clean that done refuses. Each is something a
 * checkout's own configuration (which a job or an agent can write) could
 * use to make git look away or see converted bytes: an fsmonitor hook,
 * untracked cache and stat shortcuts, a sparse checkout, ignored mode bits,
 * line-ending and case conversions, attributes from outside the tree.
 */
export const JUDGED_SETTINGS = [
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
	"core.ignoreCase=false",
	// The private index whole, in the private folder: a split index keeps part of it beside the repository's.
	"core.splitIndex=false",
	"core.attributesFile=/dev/null",
	"status.showUntrackedFiles=all",
].flatMap((setting) => ["-c", setting]);

export const CHANGE_KINDS = ["modified", "added", "deleted", "renamed", "copied", "type_changed", "conflicted", "untracked", "unreadable"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface ChangedPath {
	path: string;
	kind: ChangeKind;
	/** True when some of the change is staged in the index. */
	staged: boolean;
}

export interface WorkingState {
	/** Full sha of HEAD, or null on an unborn branch. */
	head: string | null;
	/** Branch name, or null when HEAD is detached. */
	branch: string | null;
	changes: ChangedPath[];
}

export function parsePorcelainV2(output: string): WorkingState {
	const state: WorkingState = { head: null, branch: null, changes: [] };
	const records = output.split("\0");
	for (let i = 0; i < records.length; i++) {
		const record = records[i];
		if (!record) continue;
		if (record.startsWith("# branch.oid ")) {
			const oid = record.slice("# branch.oid ".length);
			state.head = oid === "(initial)" ? null : oid;
		} else if (record.startsWith("# branch.head ")) {
			const name = record.slice("# branch.head ".length);
			state.branch = name === "(detached)" ? null : name;
		} else if (record.startsWith("1 ")) {
			const fields = splitFields(record, 9);
			state.changes.push(describe(fields[1] ?? "..", fields[8] ?? ""));
		} else if (record.startsWith("2 ")) {
			const fields = splitFields(record, 10);
			state.changes.push(describe(fields[1] ?? "..", fields[9] ?? ""));
			i++; // the original path follows as its own NUL-terminated record
		} else if (record.startsWith("u ")) {
			const fields = splitFields(record, 11);
			state.changes.push({ path: fields[10] ?? "", kind: "conflicted", staged: false });
		} else if (record.startsWith("? ")) {
			state.changes.push({ path: record.slice(2), kind: "untracked", staged: false });
		}
	}
	return state;
}

/** Split into `count` fields; the last keeps any spaces (it is the path). */
function splitFields(record: string, count: number): string[] {
	const fields: string[] = [];
	let rest = record;
	for (let n = 1; n < count; n++) {
		const space = rest.indexOf(" ");
		if (space < 0) break;
		fields.push(rest.slice(0, space));
		rest = rest.slice(space + 1);
	}
	fields.push(rest);
	return fields;
}

function describe(xy: string, path: string): ChangedPath {
	const index = xy[0] ?? ".";
	const worktree = xy[1] ?? ".";
	const code = index !== "." ? index : worktree;
	return { path, kind: KIND_BY_CODE[code] ?? "modified", staged: index !== "." };
}

const KIND_BY_CODE: Record<string, ChangeKind> = {
	M: "modified",
	A: "added",
	D: "deleted",
	R: "renamed",
	C: "copied",
	T: "type_changed",
};

/** Paths of `git ls-files -v -z` output that carry an assume-unchanged (lowercase) or skip-worktree (`S`) tag. */
export function hiddenEntries(output: string): string[] {
	const hidden: string[] = [];
	for (const entry of output.split("\0")) {
		const tag = entry[0];
		if (tag && entry[1] === " " && isHiddenTag(tag)) hidden.push(entry.slice(2));
	}
	return hidden;
}

/** An `ls-files -v` tag of a file status looks away from: lowercase (assume-unchanged) or `S` (skip-worktree). */
export function isHiddenTag(tag: string): boolean {
	return tag === "S" || (tag >= "a" && tag <= "z");
}
