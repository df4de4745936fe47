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
	 * halfway; the caller decides when to act on its own signal.
	 */
	ownGroup?: boolean;
}

/** Exit code used when the executable could not be started at all. */
export const NOT_STARTED = 127;

export async function capture(argv: readonly string[], options: CaptureOptions): Promise<Captured> {
	const child = start(argv, options);
	if ("failed" in child) return { exitCode: NOT_STARTED, stdout: "", stderr: child.failed };
	// Its own session makes it look like a job's leftover to a sweep running beside it (an MCP server's parallel calls).
	if (options.ownGroup) spare(child.pid);
	try {
		const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
		return child.signalCode ? { exitCode, stdout, stderr, killedBy: String(child.signalCode) } : { exitCode, stdout, stderr };
	} finally {
		if (options.ownGroup) unspare(child.pid);
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
			...(options.ownGroup ? { detached: true } : {}),
		});
	} catch (error) {
		return { failed: error instanceof Error ? error.message : String(error) };
	}
}

/** Find an executable on the given PATH, as a shell would. */
export function findExecutable(name: string, env: Readonly<Record<string, string | undefined>>): string | null {
	return Bun.which(name, { PATH: env.PATH ?? "" });
}

function cleanEnv(env: NonNullable<CaptureOptions["env"]>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
	return out;
}
