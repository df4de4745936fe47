import { resolve } from "node:path";
import * as v from "valibot";
import type { CallerContext } from "../contract/context.ts";
import { type AnyResult, fail } from "../contract/envelope.ts";
import { EXIT, type ExitCode } from "../contract/exit-codes.ts";
import { issueSentence } from "../contract/issues.ts";
import type { LooseVerb, VerbModule } from "../contract/verb.ts";
import { invoke } from "../invoke.ts";
import type { Resolved } from "../registry.ts";
import { wantsColor } from "../render/style.ts";
import { clip } from "../text/clip.ts";
import { capitalize, endSentence } from "../text/sentence.ts";
import { oneLine } from "../text/terminal.ts";
import { VERSION } from "../version.ts";
import { flagSpecs, parseVerbArgs } from "./flags.ts";
import { extractGlobals } from "./globals.ts";
import { type Streams, writeResult } from "./output.ts";
import { unknownFlag } from "./suggest-flag.ts";
import { versionResult } from "./version.ts";
import { outputWidth } from "./width.ts";

export interface CliEnvironment extends Streams {
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	isTTY: boolean;
	/** Whether stderr is a terminal (for the live progress line). */
	stderrIsTTY?: boolean;
	/** The terminal's width when stdout is one; text is laid out for it (`width.ts`). */
	columns?: number;
	/** Whether stdin is a terminal (with stdout: a person who can answer a prompt). */
	stdinIsTTY?: boolean;
	signal: AbortSignal;
}

/** Errors that mean "you typed it wrong": exit 2, not 1. */
const USAGE_ERRORS = new Set(["invalid_arguments", "unknown_command"]);

/**
 * The CLI projection: argv in, one result out, an exit code back. Never
 * throws: a bug becomes an `internal_error` result, a crash report and 70.
 */
export async function runCli(argv: readonly string[], io: CliEnvironment): Promise<ExitCode> {
	const extracted = extractGlobals(argv);
	const json = extracted.ok ? extracted.globals.json : argv.includes("--json");
	const color = !json && wantsColor(io.env, io.isTTY);
	let verbName = "help";
	// Kept for the crash path: a yes/no question must not read as "no" when discern crashed answering it.
	try {
		if (!extracted.ok) return emit(usageFailure("help", extracted.message), "", io, json, color);
		const { globals } = extracted;
		if (globals.version) return emit(versionResult(), "", io, json, color);
		const [word, ...tokens] = globals.rest;
		if (word === "mcp" && !globals.help) {
			// The server takes no flags or words of its own (only --cwd): anything else is a typo worth hearing about.
			if (tokens.length > 0) return emit(usageFailure("help", `\`discern mcp\` takes no arguments, got \`${clip(tokens[0] ?? "")}\``), "", io, json, color);
			const { serveStdio } = await import("../mcp/stdio.ts");
			return await serveStdio({ cwd: resolveCwd(io.cwd, globals.cwd), env: io.env, signal: io.signal });
		}
		// `discern help --help` is help's own page; `discern help done --help` is done's; `discern config get --help` is that sub-command's.
		// Loaded only past --version: every verb's definition and schemas are the bulk of start-up.
		const registry = await import("../registry.ts");
		const resolved = registry.resolveCommand(globals.rest);
		const findHelp = () => registry.findVerb("help") as unknown as LooseVerb;
		if (globals.help) {
			const target =
				word === "help"
					? tokens.length > 0
						? tokens
						: ["help"]
					: resolved.kind === "verb"
						? resolved.words
						: resolved.kind === "family"
							? [resolved.family]
							: word === undefined
								? []
								: [word];
			return await runVerb(findHelp(), target.length > 0 ? [target.join(" ")] : []);
		}
		if (word === undefined) return await runVerb(findHelp(), []);
		if (resolved.kind === "unknown") {
			if (word.startsWith("-")) return emit(usageFailure("help", unknownFlag(word, null, [])), "", io, json, color);
			const { unknownVerb } = await import("./unknown-command.ts");
			return emit(unknownVerb(word), "", io, json, color);
		}
		if (resolved.kind === "family" || strayWord(resolved, registry.subCommandsOf)) {
			const { missingSubCommand } = await import("./unknown-command.ts");
			const family = resolved.kind === "family" ? resolved.family : word;
			return emit(missingSubCommand(family, resolved.rest[0]), "", io, json, color);
		}
		return await runVerb(resolved.verb as unknown as LooseVerb, resolved.rest);
	} catch (error) {
		return crashed(error);
	}

	async function runVerb(loose: LooseVerb, tokens: readonly string[]): Promise<ExitCode> {
		const { globals } = extracted as Extract<typeof extracted, { ok: true }>;
		verbName = loose.name;
		const parsed = parseVerbArgs(loose, tokens);
		const question = loose.cli.question;
		const asked = !json && question !== undefined && tokens.some((token) => token === `--${question}` || token.startsWith(`--${question}=`));
		if (!parsed.ok) return asked ? failOpen(loose.name, parsed.message, io) : emit(usageFailure(loose.name, parsed.message), "", io, json, color);
		if (globals.verbose && "verbose" in loose.input.entries) parsed.raw.verbose = true;
		const input = v.safeParse(loose.input, parsed.raw);
		if (!input.success) {
			const problem = describeIssues(loose, input.issues);
			return asked ? failOpen(loose.name, problem, io) : emit(usageFailure(loose.name, problem), "", io, json, color);
		}

		// Loaded before the session opens: a verb that asks (setup's prompt) shows its preview with its own renderer.
		const loaded = await loose.load();
		const cwd = resolveCwd(io.cwd, globals.cwd);
		const render = (shown: AnyResult) => loaded.render(shown, { color, verbose: globals.verbose });
		const { openSession } = await import("./session.ts");
		const session = await openSession({ json, globals, io, verb: loose.name, cwd, render });
		const ctx: CallerContext = { cwd, env: io.env, surface: "cli", version: VERSION, signal: io.signal, ...session.context };
		const { result, module, crash } = await invoke(loose, ctx, input.output, argv, loaded).finally(session.close);
		if (crash) io.stderr(`discern: internal error.${crash.report ? ` A crash report is at ${crash.report}.` : ""}\n`);
		// A yes/no question answers by exit code, crashes included: "could not answer" must not read as "no".
		const silent = json || !module ? null : answerSilently(module, result, input.output, io);
		if (silent !== null) return silent;
		if (crash) {
			emit(result, "", io, json, color);
			return EXIT.internal;
		}
		const verbose = (input.output as { verbose?: boolean }).verbose ?? globals.verbose;
		const body = json || !module || session.previewShown() ? "" : module.render(result, { color, verbose, width: outputWidth(io.columns, io.env) });
		return emit(result, body, io, json, color);
	}

	async function crashed(error: unknown): Promise<ExitCode> {
		const { writeCrashReport } = await import("../platform/crash-report.ts");
		const report = writeCrashReport(error, argv);
		const where = report ? ` A crash report is at ${report}.` : "";
		const message = `discern hit an internal error: ${endSentence(error instanceof Error ? error.message : String(error))}${where}`;
		io.stderr(`discern: internal error.${where}\n`);
		const result = fail(verbName, "internal_error", message, ["This is a bug in discern; please report it with the crash report."]);
		emit(result, "", io, json, color);
		return EXIT.internal;
	}
}

/** `discern setup verfy`: a word after a verb that takes none, where the verb has sub-commands — a mistyped sub-command. */
function strayWord(resolved: Extract<Resolved, { kind: "verb" }>, subCommandsOf: (family: string) => readonly unknown[]): boolean {
	const next = resolved.rest[0];
	if (next === undefined || next.startsWith("-") || resolved.words.length > 1) return false;
	const verb = resolved.verb as unknown as LooseVerb;
	return (verb.cli.positionals ?? []).length === 0 && subCommandsOf(verb.name).length > 0;
}

/** A yes/no question asked wrongly still answers "yes" (exit 0), saying why on stderr: a skipped check is worse than an extra one. */
function failOpen(verb: string, problem: string, io: Streams): ExitCode {
	io.stderr(`discern: could not answer \`discern ${verb}\` (${clip(oneLine(problem), 400)}), so the answer is yes.\n`);
	return EXIT.ok;
}

/** A yes/no question's exit code, with its warning on stderr when discern could only guess. */
function answerSilently(module: VerbModule<string, unknown, unknown>, result: AnyResult, input: unknown, io: Streams): ExitCode | null {
	const answer = module.silentExit?.(result, input) ?? null;
	if (answer === null) return null;
	if (answer.warning) io.stderr(`${answer.warning}\n`);
	return answer.code;
}

function emit(result: AnyResult, body: string, io: Streams, json: boolean, color: boolean): ExitCode {
	writeResult(result, io, { json, color, verbose: false, body });
	if (result.ok) return EXIT.ok;
	return USAGE_ERRORS.has(result.error) ? EXIT.usage : EXIT.failure;
}

function usageFailure(verb: string, message: string): AnyResult {
	const help = verb === "help" ? "`discern help`" : `\`discern help ${verb}\``;
	return fail(verb, "invalid_arguments", endSentence(capitalize(message)), [`Run ${help} for the flags it takes.`]);
}

/** Name CLI problems by the flag a person typed: "`--search` must not be empty". */
function describeIssues(verb: LooseVerb, issues: readonly v.BaseIssue<unknown>[]): string {
	const specs = flagSpecs(verb);
	return issues
		.map((issue) =>
			issueSentence(issue, {
				objectNoun: "object",
				name: (path) => {
					const spec = specs.find((candidate) => candidate.key === String(path[0]));
					if (!spec) return `\`${path.join(".")}\``;
					return spec.positional ? spec.flag.toUpperCase() : `\`--${spec.flag}\``;
				},
			}),
		)
		.filter((sentence, index, all) => all.indexOf(sentence) === index)
		.join("; ");
}

function resolveCwd(base: string, requested: string | undefined): string {
	return requested === undefined ? base : resolve(base, requested);
}
