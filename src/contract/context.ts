/**
 * Everything a verb core may know about the world it runs in. Cores never
 * read `process.*` themselves: the CLI and the MCP server build this.
 */
export interface VerbContext {
	/** Directory the verb acts in (after `--cwd` / the MCP `path`). */
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	surface: "cli" | "mcp";
	version: string;
	/** Aborted when the caller is interrupted or the MCP call is cancelled. */
	signal: AbortSignal;
}
