import * as v from "valibot";
import type { CallerContext } from "../contract/context.ts";
import type { AnyResult } from "../contract/envelope.ts";
import { EXIT, type ExitCode } from "../contract/exit-codes.ts";
import { issueSentence } from "../contract/issues.ts";
import type { LooseVerb, VerbModule } from "../contract/verb.ts";
import { invoke } from "../invoke.ts";
import { clip } from "../text/clip.ts";
import { oneLine } from "../text/terminal.ts";
import { flagSpecs } from "../usage/flag-specs.ts";
import { VERSION } from "../version.ts";
import type { CliEnvironment } from "./environment.ts";
import { type Globals, resolveCwd } from "./globals.ts";
import { emit, type Streams } from "./output.ts";
import { parseVerbArgs } from "./parse-verb-args.ts";
import { usageFailure } from "./usage-failure.ts";
import { outputWidth } from "./width.ts";

/** One run of the CLI: the line as typed, its global flags, and the terminal it answers on. */
export interface CliRun {
	io: CliEnvironment;
	/** The whole line, for a crash report. */
	argv: readonly string[];
	globals: Globals;
	json: boolean;
	color: boolean;
	/** The verb the line names, for the crash path's result: set when the tree reaches it and when it runs ("help" before either). */
	verb: string;
}

/**
 * One verb on the words typed after its name: strict parsing (an unknown
 * flag or an extra word is a usage error that names it), the input schema,
 * then the one pipeline (`invoke`), the terminal session around it, and the
 * result as text or JSON. A yes/no question answers by exit code alone.
 */
export async function runVerb(run: CliRun, verb: LooseVerb, tokens: readonly string[]): Promise<ExitCode> {
	const { io, globals, json, color } = run;
	run.verb = verb.name;
	const parsed = parseVerbArgs(verb, tokens);
	const question = verb.cli.question;
	const asked = !json && question !== undefined && tokens.some((token) => token === `--${question}` || token.startsWith(`--${question}=`));
	if (!parsed.ok) return asked ? failOpen(verb.name, parsed.message, io) : emit(usageFailure(verb.name, parsed.message), "", io, { json, color });
	if (globals.verbose && "verbose" in verb.input.entries) parsed.raw.verbose = true;
	const input = v.safeParse(verb.input, parsed.raw);
	if (!input.success) {
		const problem = describeIssues(verb, input.issues);
		return asked ? failOpen(verb.name, problem, io) : emit(usageFailure(verb.name, problem), "", io, { json, color });
	}

	// Loaded before the session opens: a verb that asks (setup's prompt) shows its preview with its own renderer.
	const loaded = await verb.load();
	const cwd = resolveCwd(io.cwd, globals.cwd);
	const render = (shown: AnyResult) => loaded.render(shown, { color, verbose: globals.verbose });
	const { openSession } = await import("./session.ts");
	const session = await openSession({ json, globals, io, verb: verb.name, cwd, render });
	const ctx: CallerContext = { cwd, env: io.env, surface: "cli", version: VERSION, signal: io.signal, ...session.context };
	const { result, module, crash } = await invoke(verb, ctx, input.output, run.argv, loaded).finally(session.close);
	if (crash) io.stderr(`discern: internal error.${crash.report ? ` A crash report is at ${crash.report}.` : ""}\n`);
	// A yes/no question answers by exit code, crashes included: "could not answer" must not read as "no".
	const silent = json || !module ? null : answerSilently(module, result, input.output, io);
	if (silent !== null) return silent;
	if (crash) {
		emit(result, "", io, { json, color });
		return EXIT.internal;
	}
	const verbose = (input.output as { verbose?: boolean }).verbose ?? globals.verbose;
	const body =
		json || !module || session.previewShown()
			? ""
			: module.render(result, { color, verbose, width: outputWidth(io.columns, io.env), narratedSteps: session.narratedSteps() });
	return emit(result, body, io, { json, color });
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
