import { join } from "node:path";
import { runCli } from "../../src/cli/run.ts";

export const REPO_ROOT = join(import.meta.dir, "../..");
export const BINARY = join(REPO_ROOT, "dist/discern");

export interface CliRun {
	exitCode: number;
	stdout: string;
	stderr: string;
}

/** Run discern from source as a real subprocess (`process.execPath` is bun under `bun test`). */
export async function runDiscern(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
	const child = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), ...args], {
		cwd: options.cwd ?? REPO_ROOT,
		env: { ...process.env, NO_COLOR: "1", ...options.env },
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { exitCode, stdout, stderr };
}

/** What the CLI answered in process: its exit code and what it wrote to each stream. */
export interface InProcessRun {
	code: number;
	stdout: string;
	stderr: string;
}

/**
 * The real CLI entry in process (argv in, exit code out), in `cwd`, without
 * colour: no binary to build or process to start, and no cap on the size of
 * one argv entry (the OS's is 128 KiB), so a megabyte-long flag reaches it whole.
 */
export async function runCliInProcess(argv: readonly string[], cwd: string): Promise<InProcessRun> {
	let stdout = "";
	let stderr = "";
	const code = await runCli(argv, {
		cwd,
		env: { PATH: process.env.PATH, NO_COLOR: "1" },
		isTTY: false,
		signal: new AbortController().signal,
		stdout: (text) => {
			stdout += text;
		},
		stderr: (text) => {
			stderr += text;
		},
	});
	return { code, stdout, stderr };
}

/** Parse stdout as exactly one JSON document (throws otherwise). */
export function onlyJson(stdout: string): Record<string, unknown> {
	const trimmed = stdout.trim();
	const parsed = JSON.parse(trimmed) as unknown;
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`not a JSON object: ${trimmed.slice(0, 200)}`);
	if (`${JSON.stringify(parsed)}\n` !== stdout) throw new Error("stdout holds more than one JSON document");
	return parsed as Record<string, unknown>;
}

/** Build dist/discern once if it is not there (the e2e tests drive the compiled binary). */
export async function ensureBinary(): Promise<string> {
	if (await Bun.file(BINARY).exists()) return BINARY;
	const build = Bun.spawn([process.execPath, join(REPO_ROOT, "build.ts")], { cwd: REPO_ROOT, stdout: "ignore", stderr: "inherit" });
	if ((await build.exited) !== 0) throw new Error("build.ts failed");
	return BINARY;
}
