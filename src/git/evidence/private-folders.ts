import { lstat, lutimes, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "../../platform/lock.ts";
import { quoteName } from "../../text/terminal.ts";

/**
 * The evidence's private folders in the temp folder: one per gate, named
 * for the discern process that made it (`discern-evidence-<pid>-XXXXXX`),
 * removed when the gate ends. A discern killed outright (SIGKILL, a power
 * cut) leaves its folder behind, and nothing else would ever remove it.
 */
const PREFIX = "discern-evidence-";

/**
 * How old an abandoned folder must be before a later gate removes it. A
 * folder whose process is gone may still belong to a discern in another PID
 * namespace sharing this temp folder (a container): it is left a day.
 */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * How often the temp folder is looked through: a shared temp folder can
 * hold tens of thousands of names, and listing them on every gate cost it
 * milliseconds. A file of this user's (`discern-evidence-swept-<uid>`)
 * keeps the time of the last look.
 */
const SWEPT_EVERY_MS = 60 * 60 * 1000;

/** A private folder for the index and stores; what went wrong when it cannot be made. */
export function privateFolder(): Promise<{ dir: string } | { failed: string }> {
	return mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`)).then(
		(dir) => ({ dir }),
		(error: unknown) => ({
			failed: `discern could not make a private folder in ${quoteName(tmpdir())} (${error instanceof Error ? error.message : String(error)})`,
		}),
	);
}

/**
 * Remove this user's private folders whose discern is gone and that have
 * not changed for a day, at most once an hour. Best effort, never failing:
 * what cannot be read or removed stays. A folder named otherwise, owned by
 * someone else, or made by a process still running (its PID may be reused:
 * then it waits) is never touched.
 */
export async function removeAbandonedFolders(now = Date.now()): Promise<void> {
	const temp = tmpdir();
	const uid = process.getuid?.();
	if (!(await sweepDue(join(temp, `${PREFIX}swept-${uid ?? "any"}`), now))) return;
	const named = new RegExp(`^${PREFIX}(\\d+)-[A-Za-z0-9]{6}$`);
	const names = (await readdir(temp).catch(() => [] as string[])).filter((name) => named.test(name));
	await Promise.all(
		names.map(async (name) => {
			const pid = Number(named.exec(name)?.[1] ?? Number.NaN);
			if (!Number.isSafeInteger(pid) || pid === process.pid || processAlive(pid)) return;
			const path = join(temp, name);
			const found = await lstat(path).catch(() => null);
			if (!found?.isDirectory() || (uid !== undefined && found.uid !== uid) || now - found.mtimeMs < ABANDONED_AFTER_MS) return;
			await rm(path, { recursive: true, force: true }).catch(() => undefined);
		}),
	);
}

/**
 * Whether the last look is an hour old, marking this one. The mark is a
 * regular file of this user's, touched, never written through: in a shared
 * temp folder anything else at its name (another user's file, a link)
 * means no look at all.
 */
async function sweepDue(mark: string, now: number): Promise<boolean> {
	const found = await lstat(mark).catch(() => null);
	const uid = process.getuid?.();
	if (!found)
		return writeFile(mark, "", { flag: "wx", mode: 0o600 }).then(
			() => true,
			() => false,
		);
	if (!found.isFile() || (uid !== undefined && found.uid !== uid) || now - found.mtimeMs < SWEPT_EVERY_MS) return false;
	const when = new Date(now);
	return lutimes(mark, when, when).then(
		() => true,
		() => false,
	);
}
