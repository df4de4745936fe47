import { type CommandContext, type CommandDef, defineCommand, runCommand, type SubCommandsDef } from "citty";
import type { AnyResult } from "../contract/envelope.ts";
import type { ExitCode } from "../contract/exit-codes.ts";
import type { LooseVerb } from "../contract/verb.ts";
import { findVerb, LOOSE_VERBS, subCommandsOf } from "../registry.ts";
import { clip } from "../text/clip.ts";
import { GLOBAL_ARGS, lenientArgs, verbArgs } from "./citty-args.ts";
import { unknownFlag } from "./suggest-flag.ts";
import { usageFailure } from "./usage-failure.ts";

/**
 * The CLI as a citty command tree, projected from the registry: `discern`
 * at the root; under it a command per verb (`status`), a family per first
 * word of two-word verbs (`config` → `get`, `set`, `validate`; `setup` and
 * `standards` are a verb and a family at once), and `mcp`. citty walks the
 * line down the tree and runs the command it reaches. Every part of a
 * command that costs something is lazy: a verb's arguments are derived from
 * its schema, and a sub-command built, only when the line reaches it.
 *
 * What the commands do is the line's (`CommandLine`): discern parses a
 * verb's words itself, strictly, from citty's `rawArgs` (citty's parser lets
 * unknown flags through), and renders help with its own help verb (citty's
 * usage renderer cannot wrap to the terminal or answer as JSON). So a
 * command's `meta` is its name alone: citty reads a description and a
 * version only to render its own usage and in `runMain`'s `--version`,
 * neither of which discern calls.
 */
export interface CommandLine {
	/** The words after `discern`, global flags taken out (`globals.ts`): what citty walks. */
	words: readonly string[];
	/** `--help` anywhere on the line: the command reached shows its help page instead of running. */
	help: boolean;
	/** Run a verb on the words typed after its name. */
	runVerb: (verb: LooseVerb, tokens: readonly string[]) => Promise<ExitCode>;
	/** Write a result no verb produced (an unknown verb, a family without its sub-command) and return its exit code. */
	answer: (result: AnyResult) => ExitCode;
	/** Serve MCP over stdio until stdin closes. */
	serveMcp: () => Promise<ExitCode>;
	/** The tree reached a verb's command (before citty derives its arguments): a crash from here on is that verb's. */
	reach: (verb: string) => void;
}

type Answer = (rawArgs: readonly string[]) => ExitCode | Promise<ExitCode>;

/**
 * Run the line through the tree; the exit code of the command that answered.
 *
 * citty throws a `CLIError` in three places discern answers in its own
 * words instead, and the tree is built so that it never does: an unknown
 * sub-command (`E_UNKNOWN_COMMAND`; see `offer`), a family given none
 * (`E_NO_COMMAND`; the root and every family have a `run` of their own), and
 * an argument its parser judged (`EARG`; see `lenientArgs`). One that still
 * escapes is a bug in the tree: runCli's crash path reports it.
 */
export async function runCommandTree(line: CommandLine): Promise<ExitCode> {
	const tree = new CommandTree(line);
	await runCommand(tree.root(), { rawArgs: [...line.words] });
	if (tree.exitCode === undefined) throw new Error(`no command of the tree answered \`discern ${line.words.join(" ")}\``);
	return tree.exitCode;
}

class CommandTree {
	/** Set by the first command that answers. */
	exitCode: ExitCode | undefined;

	constructor(private readonly line: CommandLine) {}

	root(): CommandDef {
		const line = this.line;
		return defineCommand({
			meta: { name: "discern" },
			args: GLOBAL_ARGS,
			subCommands: () => offer(line.words[0], this.topLevel()),
			// No known word: help (alone or with --help), a flag no one declared, or a verb discern does not know.
			run: this.answerOnce(([word]) => {
				if (line.help || word === undefined) return line.runVerb(helpVerb(), word === undefined ? [] : [word]);
				if (word.startsWith("-")) return line.answer(usageFailure("help", unknownFlag(word, null, [])));
				return answers().then(({ answerUnknownVerb }) => line.answer(answerUnknownVerb(word)));
			}),
		});
	}

	/** The commands under `discern`, in registry order: each verb or family by its first word, then `mcp`. */
	private topLevel(): SubCommandsDef {
		const commands: SubCommandsDef = {};
		for (const verb of LOOSE_VERBS) {
			const [first = verb.name] = verb.name.split(" ");
			if (Object.hasOwn(commands, first)) continue;
			const own = findVerb(first) as LooseVerb | undefined;
			const subCommands = subCommandsOf(first) as readonly LooseVerb[];
			commands[first] = () => (subCommands.length > 0 ? this.family(first, own, subCommands) : this.verb(own ?? verb));
		}
		commands.mcp = () => this.mcp();
		return commands;
	}

	/** A family (`config`), possibly a verb too (`setup`): its sub-commands under their second word. */
	private family(family: string, own: LooseVerb | undefined, leaves: readonly LooseVerb[]): CommandDef {
		const line = this.line;
		if (own) line.reach(own.name);
		const words = leaves.map((leaf) => leaf.name.slice(family.length + 1));
		return defineCommand({
			meta: { name: family },
			args: () => (own ? lenientArgs(verbArgs(own)) : {}),
			// A family is reached only from the root, so the word after it is the line's second.
			subCommands: () => offer(line.words[1], Object.fromEntries(leaves.map((leaf, index) => [words[index], () => this.verb(leaf)]))),
			run: this.answerOnce((rawArgs) => {
				if (line.help) return line.runVerb(helpVerb(), [family]);
				const [next] = rawArgs;
				// `discern setup verfy`: a word after a verb that takes none, where the verb has sub-commands — a mistyped sub-command.
				const stray = own !== undefined && next !== undefined && !next.startsWith("-") && (own.cli.positionals ?? []).length === 0;
				if (own && !stray) return line.runVerb(own, rawArgs);
				return answers().then(({ answerMissingSubCommand }) => line.answer(answerMissingSubCommand(family, next)));
			}),
		});
	}

	/** One verb: its words after its name are its own flags and arguments. */
	private verb(verb: LooseVerb): CommandDef {
		const line = this.line;
		line.reach(verb.name);
		return defineCommand({
			meta: { name: verb.name.split(" ").at(-1) ?? verb.name },
			args: () => lenientArgs(verbArgs(verb)),
			// `discern help --help` is help's own page, `discern help done --help` done's.
			run: this.answerOnce((rawArgs) =>
				line.help ? line.runVerb(helpVerb(), [verb.name === "help" && rawArgs.length > 0 ? rawArgs.join(" ") : verb.name]) : line.runVerb(verb, rawArgs),
			),
		});
	}

	/** The MCP server: no flags or words of its own (of the global flags, --cwd is the one it uses). */
	private mcp(): CommandDef {
		const line = this.line;
		return defineCommand({
			meta: { name: "mcp" },
			run: this.answerOnce(([word]) => {
				if (line.help) return line.runVerb(helpVerb(), ["mcp"]);
				// Anything typed after it is a typo worth hearing about, not something to ignore while serving.
				if (word !== undefined) return line.answer(usageFailure("help", `\`discern mcp\` takes no arguments, got \`${clip(word)}\``));
				return line.serveMcp();
			}),
		});
	}

	/**
	 * citty runs a command's `run` after its sub-command's has returned (`setup` after `setup verify`):
	 * the first command to answer owns the line, and the runs of the families around it do nothing.
	 */
	private answerOnce(answer: Answer): (context: CommandContext) => Promise<void> {
		return async ({ rawArgs }) => {
			if (this.exitCode === undefined) this.exitCode = await answer(rawArgs);
		};
	}
}

/**
 * The sub-commands citty may dispatch to, given the word that follows the command. citty takes the
 * first word that is not a flag, anywhere after a command, for its sub-command, and throws on one it
 * does not have. discern's grammar is narrower: a sub-command is the word right after its family,
 * and any other word is the command's own (`standards web api` names scopes, `setup --dry-run verify`
 * is setup given a stray word, `discern --jsn status` a mistyped flag, not status with a flag dropped).
 * So citty sees the sub-commands only when that word names one; otherwise the command's own `run`
 * answers. `hasOwn`, not citty's `in`: the word `constructor` is an unknown verb, not Object's.
 */
function offer(word: string | undefined, subCommands: SubCommandsDef): SubCommandsDef {
	return word !== undefined && Object.hasOwn(subCommands, word) ? subCommands : {};
}

/** The answers for words that name no command, loaded only to give one (they read the help verb's usage tables). */
function answers(): Promise<typeof import("./answer-unknown.ts")> {
	return import("./answer-unknown.ts");
}

function helpVerb(): LooseVerb {
	return findVerb("help") as unknown as LooseVerb;
}
