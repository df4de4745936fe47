import { randomUUID } from "node:crypto";
import { linkSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { errorCode } from "./error-code.ts";
import { processStart } from "./process-start.ts";

/**
 * An exclusive lock file. It is written whole to a temp file first and then
 * hard-linked into place, which fails if the lock exists: a reader never
 * sees an empty or half-written lock, and two writers can never both win.
 * A lock whose owner is gone (or a zombie), or whose PID now names another
 * process (the start time recorded with it differs), is stale and taken
 * over by renaming it aside first, so two processes cannot both take it over.
 */
export interface Lock {
	release: () => void;
}

export type LockOutcome = { ok: true; lock: Lock } | { ok: false; holder: LockHolder | null };

export interface LockHolder {
	pid: number;
	verb: string;
	since: string;
	/** Identifies this acquisition: release removes the lock only while it is still ours. */
	nonce: string;
	/** When the holder process started (`processStart`); absent in locks written without one. */
	started?: string;
}

export function acquireLock(path: string, verb: string): LockOutcome {
	mkdirSync(dirname(path), { recursive: true });
	const started = processStart(process.pid);
	const holder: LockHolder = { pid: process.pid, verb, since: new Date().toISOString(), nonce: randomUUID(), ...(started ? { started } : {}) };
	const temp = join(dirname(path), `.lock-${holder.nonce}`);
	writeFileSync(temp, JSON.stringify(holder), { mode: 0o600 });
	try {
		for (let attempt = 0; attempt < 3; attempt++) {
			if (tryLink(temp, path)) return { ok: true, lock: { release: releaser(path, holder.nonce) } };
			refuseNonFile(path);
			const current = readHolder(path);
			if (current && holds(current)) return { ok: false, holder: current };
			takeOverStale(path, current);
		}
		return { ok: false, holder: readHolder(path) };
	} finally {
		rmSync(temp, { force: true });
	}
}

/**
 * A lock is a file. Anything else in its place (a folder, a socket) is not
 * a stale lock to move aside but something discern did not make: refused
 * as the file system would refuse writing there, naming the path.
 */
function refuseNonFile(path: string): void {
	const found = lstatSync(path, { throwIfNoEntry: false });
	if (found && !found.isFile()) throw Object.assign(new Error(`${path} is not a lock file`), { code: found.isDirectory() ? "EISDIR" : "EEXIST", path });
}

function tryLink(temp: string, path: string): boolean {
	try {
		linkSync(temp, path);
		return true;
	} catch (error) {
		if (errorCode(error) === "EEXIST") return false;
		throw error;
	}
}

/**
 * Move the stale lock aside under a unique name, then check that what we
 * moved is the lock we judged stale; if another process replaced it in
 * between, put it back (it is someone's live lock).
 */
function takeOverStale(path: string, judged: LockHolder | null): void {
	const aside = `${path}.stale-${randomUUID()}`;
	try {
		renameSync(path, aside);
	} catch {
		return; // Someone else moved it first; try linking again.
	}
	const moved = readHolder(aside);
	if (moved && moved.nonce !== judged?.nonce && holds(moved)) {
		tryLink(aside, path);
	}
	rmSync(aside, { force: true });
}

function releaser(path: string, nonce: string): () => void {
	let released = false;
	const release = () => {
		if (released) return;
		released = true;
		process.off("exit", release);
		// Only our own lock: never a lock another process took over meanwhile.
		if (readHolder(path)?.nonce === nonce) rmSync(path, { force: true });
	};
	// Even an abrupt exit (process.exit on a signal) releases the lock.
	process.on("exit", release);
	return release;
}

function readHolder(path: string): LockHolder | null {
	try {
		const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
		if (typeof parsed.pid !== "number") return null;
		const holder: LockHolder = { pid: parsed.pid, verb: String(parsed.verb ?? "?"), since: String(parsed.since ?? "?"), nonce: String(parsed.nonce ?? "") };
		if (typeof parsed.started === "string") holder.started = parsed.started;
		return holder;
	} catch {
		return null;
	}
}

/**
 * The holder still holds the lock: its PID is alive and, when the lock
 * recorded a start time, that PID is still the same process. A start time
 * that cannot be read now (the process just exited, a platform without a
 * way to tell) leaves the judgement to the PID.
 */
function holds(holder: LockHolder): boolean {
	if (!processAlive(holder.pid)) return false;
	if (holder.started === undefined) return true;
	const now = processStart(holder.pid);
	return now === null || now === holder.started;
}

/** Alive and not a zombie (a killed holder its parent never reaped holds nothing); another user's process counts. */
export function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		// EPERM: it exists but belongs to someone else.
		return errorCode(error) === "EPERM";
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
		return state !== "Z" && state !== "X";
	} catch {
		return statSync("/proc", { throwIfNoEntry: false }) === undefined; // No /proc: trust kill(0).
	}
}
