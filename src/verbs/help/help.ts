import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { subCommandsIn, VERB_GROUPS } from "../../contract/verb.ts";
import { plural } from "../../text/plural.ts";
import { describeVerb, globalFlags } from "../../usage/verb-usage.ts";
import type { HelpData, HelpInput } from "./schema.ts";
import { missingSubCommand, subCommandWords, unknownVerb } from "./unknown.ts";

/** What `discern mcp` does: the server is no verb, so help lists it and explains it itself. */
const MCP_SUMMARY = "Run the MCP server over stdio (for editors and agents).";
const MCP_DETAILS =
	"Speaks the Model Context Protocol on stdin/stdout; logs go to stderr. The working root is the directory it starts in (or --cwd); every project tool also takes an absolute `path`. It exits when stdin closes, cancelling any running gate and killing its jobs first. Editors start it themselves: see `discern docs mcp` for each editor's configuration.";

/** Every verb of this build (the pipeline's `ctx.verbs`, in registry order) by group, or one verb or family explained. */
export async function help(ctx: VerbContext, input: v.InferOutput<typeof HelpInput>): Promise<Result<"help", HelpData>> {
	const { say, verbs } = ctx;
	const groups: HelpData["groups"] = VERB_GROUPS.map((name) => ({
		name,
		verbs: verbs
			.filter((verb) => verb.group === name)
			.map((verb) => ({
				name: verb.name,
				summary: verb.summary,
				mcp_tool: "tool" in verb.exposure ? verb.exposure.tool : null,
			})),
	})).filter((group) => group.verbs.length > 0);
	groups.push({ name: "Server", verbs: [{ name: "mcp", summary: MCP_SUMMARY, mcp_tool: null }] });

	if (input.verb === undefined) {
		return ok("help", say`Usage: discern <verb> [flags]. ${ref("help", { verb: "VERB" })} explains one verb.`, {
			groups,
			global_flags: globalFlags({ inVerbHelp: false }),
		});
	}
	if (input.verb === "mcp") {
		// The server takes no flags of its own, and of the global ones only --cwd.
		const verb = {
			name: "mcp",
			summary: MCP_SUMMARY,
			usage: "discern mcp [--cwd DIR]",
			arguments: [],
			flags: [],
			details: MCP_DETAILS,
			examples: ["discern mcp", "discern mcp --cwd ~/src/shop"],
			mcp_tool: null,
		};
		return ok("help", MCP_SUMMARY, { groups, global_flags: globalFlags({ inVerbHelp: true, only: ["cwd"] }), verb });
	}
	const verb = verbs.find((candidate) => candidate.name === input.verb);
	const subCommands = subCommandsIn(verbs, input.verb);
	if (!verb && subCommands.length > 0) {
		const family = { name: input.verb, sub_commands: subCommands.map((leaf) => ({ name: leaf.name, summary: leaf.summary })) };
		return ok("help", `\`${input.verb}\` has ${plural(subCommands.length, "sub-command")}: ${subCommandWords(input.verb, subCommands)}.`, {
			groups,
			global_flags: globalFlags({ inVerbHelp: false }),
			family,
		});
	}
	const [first = "", second] = input.verb.split(" ");
	if (!verb && second !== undefined && subCommandsIn(verbs, first).length > 0) return missingSubCommand(first, second, ctx);
	if (!verb) return unknownVerb(input.verb, ctx, groups);
	const mcpTool = "tool" in verb.exposure ? verb.exposure.tool : null;
	const { global_flags, ...usage } = describeVerb(verb);
	return ok("help", verb.summary, { groups, global_flags, verb: { name: verb.name, summary: verb.summary, ...usage, mcp_tool: mcpTool } });
}
