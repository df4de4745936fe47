import { writeSync } from "node:fs";
import { errorCode } from "./error-code.ts";

/**
 * Writing to a stdout or stderr that may be gone. A reader that stops
 * reading (`discern status --json | true`, `| head -c1`) is a choice, not a
 * crash: discern ends quietly with the exit code of its result. Any other
 * failure to deliver the result (a full disk behind `> file`) is said in one
 * line on stderr and makes the exit code 1 — never a stack trace or a crash
 * report.
 */

/** The reader of a pipe or socket has gone away. */
function isClosedReader(error: unknown): boolean {
	const code = errorCode(error);
	return code === "EPIPE" || code === "ECONNRESET" || code === "ERR_STREAM_DESTROYED";
}

function describe(error: unknown): string {
	return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

/**
 * `process.stdout` and `process.stderr`, guarded. Node-style streams report
 * a failed write as an `error` event, which without a listener ends the
 * process with a stack trace: each is given one the first time it is asked
 * for here. Narration on stderr is best-effort; stdout's own failures are
 * judged where the result is written. Made only when used: setting up both
 * streams costs about 2 ms, which `--version`, `status --json` and the
 * result itself (written to fd 1 directly) need not pay.
 */
export function standardOut(): NodeJS.WriteStream {
	return guarded(process.stdout);
}

export function standardErr(): NodeJS.WriteStream {
	return guarded(process.stderr);
}

const GUARDED = new WeakSet<NodeJS.WriteStream>();

function guarded(stream: NodeJS.WriteStream): NodeJS.WriteStream {
	if (!GUARDED.has(stream)) {
		stream.on("error", () => undefined);
		GUARDED.add(stream);
	}
	return stream;
}

/**
 * Write the whole result to stdout: true when it was delivered or its
 * reader left; false when it could not be. Written to fd 1 directly, byte
 * offset by byte offset: once `process.stdout` has been touched a pipe may
 * be non-blocking, and a partial write must resume where it stopped, never
 * start the document again (a second copy after the first 64 KiB is not
 * one JSON document).
 */
export async function writeStdout(text: string): Promise<boolean> {
	const bytes = Buffer.from(text);
	let offset = 0;
	while (offset < bytes.byteLength) {
		try {
			offset += writeSync(1, bytes, offset, bytes.byteLength - offset);
		} catch (error) {
			if (errorCode(error) === "EAGAIN") {
				// The reader is slower than discern: wait for the pipe to drain.
				await Bun.sleep(1);
				continue;
			}
			if (isClosedReader(error)) return true;
			try {
				standardErr().write(`discern: could not write the result to stdout (${describe(error)}).\n`);
			} catch {
				// stderr is gone too: the exit code is all that is left to say it.
			}
			return false;
		}
	}
	return true;
}
