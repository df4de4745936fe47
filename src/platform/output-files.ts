import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Files for a child's stdout and stderr, never pipes: a child writing to a
 * pipe whose reader died (discern SIGKILLed) dies of SIGPIPE at its next
 * write — git's progress timer writes even with `--quiet` — so a write that
 * must finish without discern writes its output here. Both are unlinked as
 * soon as they are open: nothing is left on disk even if discern is killed.
 */
export function openOutputFiles(): { stdout: number; stderr: number } | { failed: string } {
	let dir: string | undefined;
	const opened: number[] = [];
	try {
		dir = mkdtempSync(join(tmpdir(), "discern-run-"));
		for (const name of ["stdout", "stderr"]) opened.push(openSync(join(dir, name), "w+", 0o600));
		const [stdout, stderr] = opened as [number, number];
		return { stdout, stderr };
	} catch (error) {
		for (const fd of opened) closeSync(fd);
		return { failed: `discern could not make a file for git's output: ${error instanceof Error ? error.message : String(error)}` };
	} finally {
		if (dir) rmSync(dir, { recursive: true, force: true });
	}
}

/** What was written through `fd`, whole up to `limit` bytes, else its head and tail. */
export function readBack(fd: number, limit: number): string {
	const { size } = fstatSync(fd);
	if (size <= limit) return read(fd, 0, size);
	const half = Math.floor(limit / 2);
	return `${read(fd, 0, half)}\n[… ${size - 2 * half} bytes left out …]\n${read(fd, size - half, half)}`;
}

function read(fd: number, position: number, length: number): string {
	const buffer = Buffer.alloc(length);
	const got = readSync(fd, buffer, 0, length, position);
	return buffer.toString("utf8", 0, got);
}
