import { parse as parseToml } from "smol-toml";
import { AGENTS } from "../config/schema.ts";

export type Agent = (typeof AGENTS)[number];

/**
 * Where each agent looks for its MCP servers, and how to find a `discern`
 * entry there. `refresh` will write these; `doctor` only reads them.
 */
export interface McpTarget {
	agent: Agent;
	file: string;
	/** Does the parsed file declare a `discern` server? */
	declaresDiscern: (text: string) => boolean;
}

const jsonEntry = (container: string) => (text: string) => {
	try {
		const parsed = JSON.parse(text) as Record<string, unknown>;
		const servers = parsed[container];
		return typeof servers === "object" && servers !== null && "discern" in servers;
	} catch {
		return false;
	}
};

export const MCP_TARGETS: readonly McpTarget[] = [
	{ agent: "claude_code", file: ".mcp.json", declaresDiscern: jsonEntry("mcpServers") },
	{ agent: "cursor", file: ".cursor/mcp.json", declaresDiscern: jsonEntry("mcpServers") },
	{ agent: "copilot", file: ".vscode/mcp.json", declaresDiscern: jsonEntry("servers") },
	{ agent: "gemini", file: ".gemini/settings.json", declaresDiscern: jsonEntry("mcpServers") },
	{
		agent: "codex",
		file: ".codex/config.toml",
		declaresDiscern: (text) => {
			try {
				const servers = (parseToml(text) as Record<string, unknown>).mcp_servers;
				return typeof servers === "object" && servers !== null && "discern" in servers;
			} catch {
				return false;
			}
		},
	},
];
