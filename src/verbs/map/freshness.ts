import { git } from "../../git/run.ts";
import { mapBounded } from "../../platform/bounded.ts";

/** Linked paths beyond this many per region are not counted. */
export const MAX_LINKED_PATHS = 1000;
/** Git calls running at once while a digest is computed. */
const CONCURRENCY = 8;

export interface Freshness {
	last_changed: string | null;
	commits_since: number | null;
}

/** A pathspec that means exactly this path, whatever its characters (`:`, `*`). */
const literal = (path: string) => `:(literal)${path}`;

/**
 * When a commit last changed `folder` (repository-relative), and how many
 * commits since then touched any of `linked`: two bounded git calls (the
 * paths go on stdin, so their number cannot overflow an argument list).
 * Nulls mean git could not say (no commit, an unborn branch).
 */
export async function freshness(root: string, folder: string, linked: readonly string[], signal: AbortSignal): Promise<Freshness> {
	const log = await git(["log", "-1", "--format=%H %cI", "--", literal(folder)], root, { signal });
	const [hash, date] = log.exitCode === 0 ? log.stdout.trim().split(" ") : [];
	if (!hash || !date) return { last_changed: null, commits_since: null };
	if (linked.length === 0) return { last_changed: date, commits_since: 0 };
	const paths = linked.slice(0, MAX_LINKED_PATHS).map(literal).join("\n");
	const count = await git(["rev-list", "--count", "--stdin"], root, { signal, input: `${hash}..HEAD\n--\n${paths}\n` });
	const commits = count.exitCode === 0 ? Number.parseInt(count.stdout.trim(), 10) : Number.NaN;
	return { last_changed: date, commits_since: Number.isFinite(commits) ? commits : null };
}

/** `work` over `items`, a few at a time, results in order. */
export function pooled<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
	return mapBounded(items, CONCURRENCY, work);
}
