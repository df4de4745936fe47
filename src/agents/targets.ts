import { parse as parseToml } from "smol-toml";
import { isRecord } from "../contract/record.ts";
import { readJsonc } from "../edit/jsonc.ts";
import { type Agent, PROVIDERS } from "./providers.ts";

export type { Agent } from "./providers.ts";

/**
 * Where each agent looks for its MCP servers, and whether a `discern` entry
 * is there: a read-only view of the provider registry (providers.ts) for the
 * coach and doctor.
 */
export interface McpTarget {
	agent: Agent;
	file: string;
	/** Does the parsed file declare a `discern` server? */
	declaresDiscern: (text: string) => boolean;
}

export const MCP_TARGETS: readonly McpTarget[] = PROVIDERS.map((provider) => ({
	agent: provider.agent,
	file: provider.mcp.file,
	declaresDiscern: (text: string) => readEntry(provider.mcp.format, text, provider.mcp.path) !== undefined,
}));

/** The value at `path` in a JSONC or TOML document; undefined when absent or unreadable. */
export function readEntry(format: "jsonc" | "toml", text: string, path: readonly string[]): unknown {
	let document: unknown;
	if (format === "jsonc") {
		const read = readJsonc(text);
		if (!read.ok) return undefined;
		document = read.value;
	} else {
		try {
			document = parseToml(text);
		} catch {
			return undefined;
		}
	}
	return path.reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), document);
}
