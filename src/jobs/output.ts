import { type FileHandle, open } from "node:fs/promises";
import { errorCode } from "../platform/error-code.ts";
import { cleanText } from "../text/terminal.ts";

/** The envelope keeps at most this many characters of a job's output: its head and its tail. */
export const EXCERPT_LIMIT = 16_000;

export interface Excerpt {
	text: string;
	/** True when the middle was cut (the whole output is in the log file). */
	truncated: boolean;
	bytes: number;
}

/**
 * Read a bounded excerpt of a job's log: the whole of it when small, else
 * its first and last halves of the limit with a marker between. Memory
 * stays bounded however much the job printed: the log went straight from
 * the child to the file. Terminal sequences and control characters are
 * stripped from the excerpt (`cleanText`); the file keeps the raw bytes.
 */
export async function readExcerpt(path: string, limit = EXCERPT_LIMIT, outputBytes?: number): Promise<Excerpt> {
	const handle = await openLog(path);
	if (!handle) return { text: LOG_GONE, truncated: false, bytes: 0 };
	try {
		const { size } = await handle.stat();
		if (size <= limit) {
			const buffer = Buffer.alloc(size);
			await handle.read(buffer, 0, size, 0);
			return { text: cleanText(buffer.toString("utf8")), truncated: false, bytes: size };
		}
		const half = Math.floor(limit / 2) - 100;
		const head = Buffer.alloc(half);
		const tail = Buffer.alloc(half);
		await handle.read(head, 0, half, 0);
		await handle.read(tail, 0, half, size - half);
		const marker = omissionMarker(size - 2 * half, outputBytes);
		return { text: cleanText(`${decodeCut(head, "end")}${marker}${decodeCut(tail, "start")}`), truncated: true, bytes: size };
	} finally {
		await handle.close();
	}
}

/**
 * What an excerpt says where it was cut. `outputBytes` is set when the log
 * itself was cut to its head and tail: then the log no longer holds it all.
 */
function omissionMarker(omitted: number, outputBytes: number | undefined): string {
	if (outputBytes === undefined) return `\n… [${omitted} bytes omitted; the whole output is in the log file] …\n`;
	return `\n… [the job printed ${outputBytes} bytes; this excerpt and its log file keep the head and the tail] …\n`;
}

/** What an excerpt says when the log is gone. */
const LOG_GONE = "[discern] the job's log file is gone (something removed it while the gate ran)";

/**
 * Open a job's log, or null when it is gone: a job may delete discern's
 * runs folder (it lives in the checkout's git dir), and that must read as
 * "no output", never as a crash.
 */
export async function openLog(path: string): Promise<FileHandle | null> {
	try {
		return await open(path, "r");
	} catch (error) {
		const code = errorCode(error);
		if (code === "ENOENT" || code === "ENOTDIR") return null;
		throw error;
	}
}

/** Read up to `max` bytes of a log for report detection (SARIF/JUnit in the output). */
export async function readUpTo(path: string, max: number): Promise<string | null> {
	const handle = await openLog(path);
	if (!handle) return null;
	try {
		const { size } = await handle.stat();
		if (size > max) return null;
		const buffer = Buffer.alloc(size);
		await handle.read(buffer, 0, size, 0);
		return buffer.toString("utf8");
	} finally {
		await handle.close();
	}
}

/** Drop a UTF-8 sequence split by the cut, rather than show a replacement character. */
function decodeCut(buffer: Buffer, cutAt: "start" | "end"): string {
	const text = buffer.toString("utf8");
	if (cutAt === "end") return text.replace(/\uFFFD+$/, "");
	return text.replace(/^\uFFFD+/, "");
}

/** The first `max` bytes of a log (all of it when smaller); null when it cannot be read. */
export async function readHead(path: string, max: number): Promise<string | null> {
	const handle = await openLog(path);
	if (!handle) return null;
	try {
		const { size } = await handle.stat();
		const length = Math.min(size, max);
		const buffer = Buffer.alloc(length);
		await handle.read(buffer, 0, length, 0);
		return buffer.toString("utf8");
	} finally {
		await handle.close();
	}
}
