import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { stateFolder, stateFolderToRead } from "../state/dir.ts";

/** How many runs' outputs to keep. */
const KEPT_RUNS = 5;
/**
 * And how many bytes they may hold together. Each job's log is capped (see
 * log-cap.ts), so one run holds at most its job count × the cap; the newest
 * run is kept whatever its size, older ones only while they fit.
 */
export const RUNS_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * A fresh folder for one run's job logs, named so that runs sort by time.
 * Older runs are pruned first unless `prune` is false (the caller prunes
 * while its run is under way, off the path to its first job).
 */
export async function newRunDir(gitDir: string, verb: string, options: { prune?: boolean } = {}): Promise<string> {
	// `discern/runs`, each folder checked: a link there (to a person's folder) is refused, never written into (state/dir.ts).
	const runs = stateFolder(gitDir, ["runs"], { create: true }) as string;
	const dir = join(runs, `${new Date().toISOString().replace(/[:.]/g, "-")}-${verb}-${process.pid}`);
	// Made here, not found: a name taken already (a link put there) fails rather than being written through.
	await mkdir(dir);
	if (options.prune !== false) await pruneRuns(dir);
	return dir;
}

/**
 * Remove older runs beyond KEPT_RUNS or RUNS_BUDGET_BYTES, newest kept
 * first, never `current` (the run in progress, or just ended). Housekeeping:
 * what cannot be read or removed is left as it is. `weighCurrent: false`:
 * the current run counts for nothing yet (its logs are still written).
 *
 * Only real folders in a real `runs` folder go: a `runs` that became a link
 * meanwhile is not looked into, and an entry that is a link, or a file, is
 * not a run discern made and stays (a recursive removal removes a link
 * inside a run as a link, never what it leads to).
 */
export async function pruneRuns(current: string, options: { weighCurrent?: boolean } = {}): Promise<void> {
	const runs = dirname(current);
	// `current` is `<git dir>/discern/runs/<run>` (newRunDir): every folder from the git dir down is checked again.
	if (stateFolderToRead(dirname(dirname(runs)), ["runs"]) !== runs) return;
	const names = (await readdir(runs).catch(() => [])).sort().reverse();
	let total = options.weighCurrent === false ? 0 : await entryBytes(current);
	let kept = 1;
	let full = false;
	for (const name of names) {
		const path = join(runs, name);
		if (path === current || !(await lstat(path).catch(() => null))?.isDirectory()) continue;
		const bytes: number = full ? 0 : await entryBytes(path);
		full ||= kept >= KEPT_RUNS || total + bytes > RUNS_BUDGET_BYTES;
		if (full) {
			await rm(path, { recursive: true, force: true }).catch(() => undefined);
			continue;
		}
		total += bytes;
		kept++;
	}
}

/** A run folder's size: the apparent size of each log (a log left sparse by a killed run counts in full). */
async function entryBytes(path: string): Promise<number> {
	const info = await lstat(path).catch(() => null);
	if (!info) return 0;
	if (!info.isDirectory()) return info.size;
	const names = await readdir(path).catch(() => []);
	const sizes = await Promise.all(names.map(async (name) => (await lstat(join(path, name)).catch(() => null))?.size ?? 0));
	return sizes.reduce((sum, size) => sum + size, 0);
}
