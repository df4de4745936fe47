import type { Streams } from "./output.ts";

/** What `main.ts` hands the CLI: where it runs, its streams and what they are connected to. */
export interface CliEnvironment extends Streams {
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	isTTY: boolean;
	/** Whether stderr is a terminal (for the live progress line). */
	stderrIsTTY?: boolean;
	/** Whether stdout and stderr land in one place (a merged CI log, `> log 2>&1`): narration is then part of the output. */
	sharedOutput?: boolean;
	/** The terminal's width when stdout is one; text is laid out for it (`width.ts`). */
	columns?: number;
	/** Whether stdin is a terminal (with stdout: a person who can answer a prompt). */
	stdinIsTTY?: boolean;
	signal: AbortSignal;
}
