import { closeSync } from "node:fs";
import { openOutputFiles, readBack } from "./output-files.ts";
import { spare, unspare } from "./spared.ts";

/**
 * The one place that starts processes for their output. Commands are always
 * argument arrays: nothing here goes through a shell.
 */
export interface Captured {
	exitCode: number;
	stdout: string;
	stderr: string;
	/** The signal that ended the process, when one did (its exit code is then 128+n). */
	killedBy?: string;
}

export interface CaptureOptions {
	cwd: string;
	env?: Readonly<Record<string, string | undefined>>;
	signal?: AbortSignal;
	/** Written to the child's stdin (closed otherwise). */
	input?: string;
	/**
	 * A process group of its own (setsid): a terminal's Ctrl-C, sent to the
	 * foreground group, does not reach it. For a write that must not stop
	 * halfway; the caller decides when to act on its own signal. Its output
	 * goes to files, not pipes (platform/output-files.ts), so that it also
	 * finishes when discern itself is killed.
	 */
	ownGroup?: boolean;
	/** With ownGroup: told the child's pid once it started (a journal records it, to judge later whether it still runs). */
	onStart?: (pid: number) => void;
}

/** Exit code used when the executable could not be started at all. */
export const NOT_STARTED = 127;

export async function capture(argv: readonly string[], options: CaptureOptions): Promise<Captured> {
	if (options.ownGroup) return captureOwnGroup(argv, options);
	const child = start(argv, options);
	if ("failed" in child) return { exitCode: NOT_STARTED, stdout: "", stderr: child.failed };
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return child.signalCode ? { exitCode, stdout, stderr, killedBy: String(child.signalCode) } : { exitCode, stdout, stderr };
}

/** A process of its own session whose output goes to unlinked files: it outlives discern, and finishes. */
async function captureOwnGroup(argv: readonly string[], options: CaptureOptions): Promise<Captured> {
	const files = openOutputFiles();
	if ("failed" in files) return { exitCode: NOT_STARTED, stdout: "", stderr: files.failed };
	try {
		let child: Bun.Subprocess<"ignore" | Blob, number, number>;
		try {
			child = Bun.spawn([...argv], {
				cwd: options.cwd,
				...(options.env ? { env: cleanEnv(options.env) } : {}),
				stdin: options.input === undefined ? "ignore" : new Blob([options.input]),
				stdout: files.stdout,
				stderr: files.stderr,
				...(options.signal ? { signal: options.signal } : {}),
				detached: true,
			});
		} catch (error) {
			return { exitCode: NOT_STARTED, stdout: "", stderr: error instanceof Error ? error.message : String(error) };
		}
		// Its own session makes it look like a job's leftover to a sweep running beside it (an MCP server's parallel calls).
		spare(child.pid);
		options.onStart?.(child.pid);
		try {
			const exitCode = await child.exited;
			const stdout = readBack(files.stdout, Number.MAX_SAFE_INTEGER);
			const stderr = readBack(files.stderr, Number.MAX_SAFE_INTEGER);
			return child.signalCode ? { exitCode, stdout, stderr, killedBy: String(child.signalCode) } : { exitCode, stdout, stderr };
		} finally {
			unspare(child.pid);
		}
	} finally {
		closeSync(files.stdout);
		closeSync(files.stderr);
	}
}

function start(argv: readonly string[], options: CaptureOptions): Bun.Subprocess<"ignore" | Blob, "pipe", "pipe"> | { failed: string } {
	return spawned(argv, options, options.input === undefined ? "ignore" : new Blob([options.input]));
}

/**
 * A process kept open to answer requests on its stdin (git's `cat-file
 * --batch`): the caller writes, reads stdout as it comes, and ends stdin
 * when done. Null when it could not be started.
 */
export function startPiped(argv: readonly string[], options: Omit<CaptureOptions, "input">): Bun.Subprocess<"pipe", "pipe", "pipe"> | null {
	const child = spawned(argv, options, "pipe");
	return "failed" in child ? null : child;
}

function spawned<In extends "ignore" | "pipe" | Blob>(
	argv: readonly string[],
	options: Omit<CaptureOptions, "input">,
	stdin: In,
): Bun.Subprocess<In, "pipe", "pipe"> | { failed: string } {
	try {
		return Bun.spawn([...argv], {
			cwd: options.cwd,
			...(options.env ? { env: cleanEnv(options.env) } : {}),
			stdin,
			stdout: "pipe",
			stderr: "pipe",
			...(options.signal ? { signal: options.signal } : {}),
		});
	} catch (error) {
		return { failed: error instanceof Error ? error.message : String(error) };
	}
}

/** Find an executable on the given PATH, as a shell would. */
export function findExecutable(name: string, env: Readonly<Record<string, string | undefined>>): string | null {
	return Bun.which(name, { PATH: env.PATH ?? "" });
}

export function cleanEnv(env: NonNullable<CaptureOptions["env"]>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
	return out;
}
