import type * as v from "valibot";
import { firstTry } from "../../cli/suggest-first-tries.ts";
import { describeVerb, globalFlags } from "../../cli/usage.ts";
import type { VerbContext } from "../../contract/context.ts";
import { fail, ok, type Result } from "../../contract/envelope.ts";
import { ref, type Surface, wordsFor } from "../../contract/refer.ts";
import { subCommandsIn, VERB_GROUPS } from "../../contract/verb.ts";
import { findVerb, LOOSE_VERBS, subCommandsOf } from "../../registry.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { nearest } from "../../text/suggest.ts";
import type { HelpData, HelpInput } from "./schema.ts";

/** Verbs of the design that are not in this build yet; named so help can say so instead of "unknown". */
export const COMING_VERBS: readonly string[] = [];

const MCP_SUMMARY = "Run the MCP server over stdio (for editors and agents).";
const MCP_DETAILS =
	"Speaks the Model Context Protocol on stdin/stdout; logs go to stderr. The working root is the directory it starts in (or --cwd); every project tool also takes an absolute `path`. It exits when stdin closes, cancelling any running gate and killing its jobs first. Editors start it themselves: see `discern docs mcp` for each editor's configuration.";

/**
 * The words for `missingSubCommand` and `unknownVerb`, which the CLI also reaches outside the pipeline
 * with a bare surface: they render against the registry itself (they are on their way to src/cli/).
 */
function sayFor(surface: Surface) {
	return wordsFor(surface, LOOSE_VERBS).say;
}

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
		return ok("help", `\`${input.verb}\` has ${plural(subCommands.length, "sub-command")}: ${wordsAfter(input.verb, subCommands)}.`, {
			groups,
			global_flags: globalFlags({ inVerbHelp: false }),
			family,
		});
	}
	const [first = "", second] = input.verb.split(" ");
	if (!verb && second !== undefined && subCommandsIn(verbs, first).length > 0) return missingSubCommand(first, second, ctx.surface);
	if (!verb) return unknownVerb(input.verb, groups, ctx.surface);
	const mcpTool = "tool" in verb.exposure ? verb.exposure.tool : null;
	const { global_flags, ...usage } = describeVerb(verb);
	return ok("help", verb.summary, { groups, global_flags, verb: { name: verb.name, summary: verb.summary, ...usage, mcp_tool: mcpTool } });
}

/**
 * A family word alone (`config`), or with a mistyped sub-command (`config gte`): it needs one of its
 * sub-commands; a near miss names the closest.
 */
export function missingSubCommand(family: string, typed: string | undefined, surface: Surface = "cli"): Result<"help", HelpData> {
	const say = sayFor(surface);
	const subCommands = subCommandsOf(family);
	const names = wordsAfter(family, subCommands);
	const helpFamily = say`Run ${ref("help", { verb: family })} for what each does.`;
	if (typed === undefined) {
		return fail("help", "invalid_arguments", `\`${family}\` needs a sub-command: ${names}.`, [helpFamily]);
	}
	const suggestion = nearest(
		typed,
		subCommands.map((leaf) => leaf.name.slice(family.length + 1)),
	);
	const named = suggestion ? findVerb(`${family} ${suggestion}`) : undefined;
	return fail(
		"help",
		"unknown_command",
		`\`${family}\` has no sub-command \`${clip(typed)}\`; it has ${names}.`,
		named ? [say`Did you mean ${ref(named.name)}?`, helpFamily] : [helpFamily],
	);
}

/** "get, set or validate": the second words of a family's sub-commands. */
function wordsAfter(family: string, subCommands: readonly { name: string }[]): string {
	const words = subCommands.map((leaf) => `\`${leaf.name.slice(family.length + 1)}\``);
	return words.length === 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/** The result for a verb discern does not know: a newcomer's first try, the closest real one, or a note that it is still to come. */
export function unknownVerb(
	name: string,
	groups?: HelpData["groups"],
	surface: Surface = "cli",
	coming: readonly string[] = COMING_VERBS,
): Result<"help", HelpData> {
	const say = sayFor(surface);
	const everyVerb = say`Run ${ref("help")} for every verb.`;
	// First words: a family (`config`) is what a person types first.
	const known = [...new Set(LOOSE_VERBS.map((verb) => verb.name.split(" ")[0] ?? verb.name)), "mcp"];
	const withGroups = groups ? { data: { groups, global_flags: globalFlags({ inVerbHelp: false }) } } : {};
	if (coming.includes(name)) {
		return fail(
			"help",
			"unknown_command",
			`\`discern ${name}\` is part of the design but not in this build yet.`,
			[say`Run ${ref("help")} for the verbs this build has.`],
			withGroups,
		);
	}
	const tried = firstTry(name);
	if (tried) {
		const options = tried.commands.map((command) => `\`${command}\``);
		const choice = options.length === 1 ? options[0] : `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`;
		return fail("help", "unknown_command", `Unknown verb \`${clip(name)}\`. Did you mean ${choice}? ${tried.reason}`, [everyVerb], withGroups);
	}
	const suggestion = nearest(name, known);
	const named = suggestion ? findVerb(suggestion) : undefined;
	// A family (`config`) is no command by itself: its help lists the sub-commands that are.
	const family = suggestion && !named && subCommandsOf(suggestion).length > 0;
	const meant = named
		? say`Did you mean ${ref(named.name)}?`
		: family
			? say`Did you mean \`${suggestion}\`? ${ref("help", { verb: suggestion })} lists its sub-commands.`
			: `Did you mean \`discern ${suggestion}\`?`;
	const hints: [string, ...string[]] = suggestion ? [meant, everyVerb] : [everyVerb];
	return fail("help", "unknown_command", `Unknown verb \`${clip(name)}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ""}`, hints, withGroups);
}
