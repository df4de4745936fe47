import type { RepositoryLocation } from "../git/repository.ts";
import type { AnyResult } from "./envelope.ts";
import type { Surface, SurfaceWords } from "./refer.ts";

/** A job starting or finishing, for live progress (a TTY line, MCP progress notifications). */
export type ProgressEvent =
	| { type: "start"; label: string; stage: string; done: number; total: number }
	| { type: "finish"; label: string; stage: string; outcome: string; durationS: number; done: number; total: number };

/** What a core tells a person watching with --verbose: what it loaded and what it runs. */
export type Narration = { type: "config"; path: string; state: string } | { type: "command"; label: string; stage: string; command: string };

/**
 * Everything a verb core may know about the world it runs in. Cores never
 * read `process.*` themselves: the CLI and the MCP server build this, and
 * the invocation pipeline (src/invoke.ts) adds the rest: the verbs of this
 * build and the words for the surface (`ctx.say`, `ctx.action`,
 * `ctx.verbs`: see contract/refer.ts), and the repository.
 */
export interface VerbContext extends SurfaceWords {
	/** Directory the verb acts in (after `--cwd` / the MCP `path`). */
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	surface: Surface;
	version: string;
	/** Aborted when the caller is interrupted or the MCP call is cancelled. */
	signal: AbortSignal;
	/** Set when someone watches progress. */
	progress?: (event: ProgressEvent) => void;
	/** Set by the CLI under --verbose only: never with --json or --quiet, never over MCP. */
	narrate?: (event: Narration) => void;
	/** Set by the CLI only on an interactive terminal: shows `preview`, asks `question`, true for a yes. */
	confirm?: (question: string, preview: AnyResult) => Promise<boolean>;
	/**
	 * The repository around `cwd`, located by the invocation pipeline before
	 * the core runs (it takes the verb's lock there and logs the run there);
	 * absent when there is none or the verb works anywhere. Cores open it
	 * through `openRepository`, which reuses it.
	 */
	repository?: RepositoryLocation;
}

/** What a surface hands the invocation pipeline: everything but what the pipeline adds itself. */
export type CallerContext = Omit<VerbContext, "repository" | keyof SurfaceWords>;
