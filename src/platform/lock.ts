import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * An exclusive lock file (O_EXCL create). A second writer fails at once,
 * having changed nothing. A lock whose owner process is gone is stale and
 * taken over, so a crash never leaves a checkout locked for good.
 */
export interface Lock {
	release: () => void;
}

export type LockOutcome = { ok: true; lock: Lock } | { ok: false; holder: LockHolder | null };

export interface LockHolder {
	pid: number;
	verb: string;
	since: string;
}

export function acquireLock(path: string, verb: string): LockOutcome {
	mkdirSync(dirname(path), { recursive: true });
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			const fd = openSync(path, "wx", 0o600);
			const holder: LockHolder = { pid: process.pid, verb, since: new Date().toISOString() };
			writeSync(fd, JSON.stringify(holder));
			closeSync(fd);
			let released = false;
			const release = () => {
				if (released) return;
				released = true;
				rmSync(path, { force: true });
				process.off("exit", release);
			};
			// Even an abrupt exit (process.exit on a signal) releases the lock.
			process.on("exit", release);
			return { ok: true, lock: { release } };
		} catch (error) {
			if (!isExists(error)) throw error;
			const holder = readHolder(path);
			if (holder && processAlive(holder.pid)) return { ok: false, holder };
			// The owner is gone (or the file is unreadable garbage): take the stale lock over once.
			rmSync(path, { force: true });
		}
	}
	return { ok: false, holder: readHolder(path) };
}

function readHolder(path: string): LockHolder | null {
	try {
		const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
		if (typeof parsed.pid !== "number") return null;
		return { pid: parsed.pid, verb: String(parsed.verb ?? "?"), since: String(parsed.since ?? "?") };
	} catch {
		return null;
	}
}

function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it exists but belongs to someone else.
		return typeof error === "object" && error !== null && "code" in error && error.code === "EPERM";
	}
}

function isExists(error: unknown): boolean {
	return typeof error === "object" && error !== null && "code" in error && error.code === "EEXIST";
}
