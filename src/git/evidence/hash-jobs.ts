import { availableParallelism } from "node:os";
import { join } from "node:path";
import { sizeOfKey } from "./stat-key.ts";
import { hashTied, type TiedRead } from "./tied-read.ts";

/**
 * The evidence's reads of many files, on every core (issue 23): a first
 * look at a large tree is mostly reading and hashing, which one thread does
 * one file after another. Each worker thread (hash-worker.ts) takes a share
 * of the files and reads each tied to the stat the look took (tied-read.ts),
 * so a file is hashed from the file opened, never from whatever its path
 * names later, as in the main thread. A few small files are read here: a
 * thread costs more than they do.
 */

export interface HashItem {
	/** Relative to the root. */
	path: string;
	/** The look's stat of the path (stat-key.ts). */
	expected: string | undefined;
	withSha256: boolean;
}

export interface HashJob {
	root: string;
	hexLength: number;
	items: HashItem[];
}

/** What a job's files hold, in its items' order. */
export function hashAnswer(job: HashJob): TiedRead[] {
	return job.items.map((item) => hashTied(join(job.root, item.path), item.expected, job.hexLength, item.withSha256));
}

/** Below this many files, or bytes, they are read here. */
const THREADS_FROM_FILES = 64;
const THREADS_FROM_BYTES = 8 * 1024 * 1024;
/** Files per thread at least: a thread's start is worth a few dozen reads. */
const FILES_PER_THREAD = 32;

/** Every file's reading, by path. */
export async function hashAll(root: string, hexLength: number, items: readonly HashItem[]): Promise<Map<string, TiedRead>> {
	const bytes = items.reduce((sum, item) => sum + (sizeOfKey(item.expected) ?? 0), 0);
	const threads =
		items.length < THREADS_FROM_FILES && bytes < THREADS_FROM_BYTES
			? 0
			: Math.max(1, Math.min(availableParallelism(), 4, Math.ceil(items.length / FILES_PER_THREAD)));
	if (threads === 0) return answered(items, hashAnswer({ root, hexLength, items: [...items] }));
	// Dealt round the threads, so that large and small files share out evenly.
	const shares = Array.from({ length: threads }, (_, n) => items.filter((_, index) => index % threads === n));
	const answers = await Promise.all(shares.map((share) => inThread({ root, hexLength, items: share })));
	const found = new Map<string, TiedRead>();
	shares.forEach((share, n) => {
		for (const [path, read] of answered(share, answers[n] ?? [])) found.set(path, read);
	});
	return found;
}

function answered(items: readonly HashItem[], reads: readonly TiedRead[]): Map<string, TiedRead> {
	return new Map(items.map((item, index) => [item.path, reads[index] ?? "unreadable"]));
}

/**
 * Where the worker's code is: beside this module when run from source; in
 * the compiled binary, its own entry under the embedded file system's root
 * (build.ts names it so), wherever the bundler put this module's chunk.
 */
export function workerSpecifier(): string {
	return import.meta.url.startsWith("file:///$bunfs/") ? COMPILED_WORKER : new URL("./hash-worker.ts", import.meta.url).href;
}

/** The worker's entry in the compiled binary: its path under src/, as build.ts builds it, in Bun's embedded file system. */
const COMPILED_WORKER = "/$bunfs/root/git/evidence/hash-worker.js";

/** One share, in a worker thread; read here when the thread cannot start, fails, or ends without an answer. */
function inThread(job: HashJob): Promise<TiedRead[]> {
	return new Promise((resolve) => {
		let worker: Worker;
		try {
			worker = new Worker(workerSpecifier());
		} catch {
			resolve(hashAnswer(job));
			return;
		}
		let settled = false;
		const settle = (reads: () => TiedRead[]) => {
			if (settled) return;
			settled = true;
			worker.terminate();
			resolve(reads());
		};
		worker.onmessage = (event: MessageEvent<TiedRead[]>) => settle(() => event.data);
		worker.onerror = () => settle(() => hashAnswer(job));
		// A thread that ends without answering (killed, exited) leaves its share to be read here, never a look that waits forever.
		worker.addEventListener("close", () => settle(() => hashAnswer(job)));
		worker.postMessage(job);
	});
}

/** Whether a worker thread of the evidence starts and answers here (doctor asks: the compiled binary must carry it). */
export function workerAnswers(timeoutMs = 5000): Promise<boolean> {
	return new Promise((resolve) => {
		let worker: Worker;
		try {
			worker = new Worker(workerSpecifier());
		} catch {
			resolve(false);
			return;
		}
		const done = (answered: boolean) => {
			clearTimeout(timer);
			worker.terminate();
			resolve(answered);
		};
		const timer = setTimeout(() => done(false), timeoutMs);
		worker.onmessage = (event: MessageEvent<unknown>) => done(Array.isArray(event.data) && event.data.length === 0);
		worker.onerror = () => done(false);
		worker.postMessage({ root: "/", hexLength: 40, items: [] } satisfies HashJob);
	});
}
