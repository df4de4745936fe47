/**
 * A job's log on disk stays bounded however much the job prints.
 *
 * The job writes straight to the log's file descriptor (discern never holds
 * its output in memory), so the log can only be cut around the writer:
 *
 * - While the job runs, a watcher frees the disk blocks between the log's
 *   head and its last LOG_TAIL_BYTES (a hole punched with fallocate; the
 *   file keeps its size and the job its write offset, so nothing races the
 *   writer). Disk use stays near head + tail + what the job writes between
 *   two looks, however long it prints. It costs one fstat per look
 *   (WATCH_MS) and a punch each PUNCH_STEP_BYTES of growth (~3 ms to free
 *   46 MB on ext4). Where punching is not available the log grows until
 *   the job ends.
 * - When the job ends, an oversized log is rewritten in place: its head, a
 *   marker saying how much was left out, its tail (temp file + rename).
 *
 * Measured with scripts/bench.ts, a job printing 200 MB: throughput as
 * before (0.75–0.92× the same pipeline into a file), discern's peak memory
 * 48 MB (47 MB before), 20 MB under the git dir after five such runs
 * (1 000 MB before).
 *
 * Logs up to LOG_LIMIT_BYTES are never touched: that includes every output
 * discern scans for SARIF/JUnit (4 MB at most) and the tail standards read
 * their metrics from (1 MB).
 */
import { fstatSync } from "node:fs";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { punchHole } from "../platform/punch-hole.ts";
import { openLog } from "./output.ts";

export const LOG_HEAD_BYTES = 2 * 1024 * 1024;
export const LOG_TAIL_BYTES = 2 * 1024 * 1024;
/** A log longer than this is cut to its head and tail. */
export const LOG_LIMIT_BYTES = LOG_HEAD_BYTES + LOG_TAIL_BYTES;

/** How often a running job's log size is looked at. */
const WATCH_MS = 250;
/** Punch only once this much could be freed: fewer, larger punches. */
const PUNCH_STEP_BYTES = 8 * 1024 * 1024;
/** Holes start and end on block boundaries, so no kept byte is zeroed. */
const BLOCK = 4096;
/** A cut moves to a line boundary when one is this close, so the marker sits on its own line. */
const LINE_SEARCH_BYTES = 64 * 1024;

export interface LogWatch {
	stop: () => void;
}

/** Watch a running job's log and free the blocks of its middle as it grows. */
export function watchLog(fd: number): LogWatch {
	let punchedTo = LOG_HEAD_BYTES;
	const look = () => {
		let size: number;
		try {
			size = fstatSync(fd).size;
		} catch {
			return; // The descriptor is being closed: the job has ended.
		}
		const end = Math.floor((size - LOG_TAIL_BYTES) / BLOCK) * BLOCK;
		if (end - punchedTo < PUNCH_STEP_BYTES) return;
		if (punchHole(fd, punchedTo, end - punchedTo)) punchedTo = end;
		else clearInterval(timer); // Not supported here: the cut waits for the job's end.
	};
	const timer = setInterval(look, WATCH_MS);
	timer.unref();
	return { stop: () => clearInterval(timer) };
}

export interface CappedLog {
	/** What the job printed in all. */
	bytes: number;
	/** Bytes left out of the log (0 when it was not cut). */
	omitted: number;
}

/**
 * Cut an ended job's log to its head and tail with a marker between, in
 * place. Copied in small chunks: memory stays flat whatever the log's size.
 */
export async function capLog(path: string): Promise<CappedLog> {
	const source = await openLog(path);
	if (!source) return { bytes: 0, omitted: 0 };
	const temp = join(dirname(path), `.${basename(path)}.${process.pid}.capping`);
	let cut: CappedLog;
	try {
		const size = (await source.stat()).size;
		if (size <= LOG_LIMIT_BYTES) return { bytes: size, omitted: 0 };
		// Cut at line boundaries when one is near, so the marker sits on a line of its own.
		const nearHeadEnd = await readAt(source, LOG_HEAD_BYTES - LINE_SEARCH_BYTES, LINE_SEARCH_BYTES);
		const headNewline = nearHeadEnd.lastIndexOf(0x0a);
		const headEnd = headNewline < 0 ? LOG_HEAD_BYTES : LOG_HEAD_BYTES - LINE_SEARCH_BYTES + headNewline + 1;
		const nearTailStart = await readAt(source, size - LOG_TAIL_BYTES, LINE_SEARCH_BYTES);
		const tailNewline = nearTailStart.indexOf(0x0a);
		const tailStart = tailNewline < 0 ? size - LOG_TAIL_BYTES : size - LOG_TAIL_BYTES + tailNewline + 1;
		cut = { bytes: size, omitted: tailStart - headEnd };
		const marker = `${headNewline < 0 ? "\n" : ""}[discern] … ${cut.omitted} bytes of output omitted here: the log keeps the first ${headEnd} and the last ${size - tailStart} of ${size} bytes …\n`;
		await rm(temp, { force: true }); // A leftover of a run killed while cutting.
		const target = await open(temp, "wx", 0o600);
		try {
			await copyRange(source, target, 0, headEnd);
			await target.writeFile(marker);
			await copyRange(source, target, tailStart, size - tailStart);
		} finally {
			await target.close();
		}
		await rename(temp, path);
	} catch (error) {
		await rm(temp, { force: true });
		throw error;
	} finally {
		await source.close();
	}
	return cut;
}

const CHUNK_BYTES = 256 * 1024;

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
	const buffer = Buffer.alloc(length);
	const { bytesRead } = await handle.read(buffer, 0, length, position);
	return buffer.subarray(0, bytesRead);
}

/** Append `length` bytes of `source` from `position` to `target`. */
async function copyRange(source: FileHandle, target: FileHandle, position: number, length: number): Promise<void> {
	const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, length));
	for (let done = 0; done < length; ) {
		const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, length - done), position + done);
		if (bytesRead === 0) return; // The file shrank meanwhile: keep what there is.
		await target.writeFile(buffer.subarray(0, bytesRead));
		done += bytesRead;
	}
}
