/**
 * The largest message `discern mcp` reads from stdin. The SDK's stdio
 * transport buffers a line until its newline and, past this size, drops it
 * and closes itself; without a word that looked like a clean exit 0. We set
 * the limit explicitly (the SDK's default, 10 MiB) so the diagnostic can
 * name it.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The stderr line for a transport that closed itself while stdin was still open. */
export function brokenTransportLine(error: Error | undefined): string {
	const detail = error ? ` (${error.message})` : "";
	if (error?.message.includes("exceeded maximum size")) {
		return `discern mcp: a message from the client is larger than ${MAX_MESSAGE_BYTES / (1024 * 1024)} MiB, the most one stdio message may hold${detail}; the session is closed.\n`;
	}
	return `discern mcp: the stdio transport closed while the client was still connected${detail}.\n`;
}
