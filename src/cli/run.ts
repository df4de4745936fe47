import { fail } from "../contract/envelope.ts";
import { EXIT, type ExitCode } from "../contract/exit-codes.ts";
import { wantsColor } from "../render/style.ts";
import { endSentence } from "../text/sentence.ts";
import type { CliEnvironment } from "./environment.ts";
import { extractGlobals, type Globals, resolveCwd } from "./globals.ts";
import { emit } from "./output.ts";
import type { CliRun } from "./run-verb.ts";
import { usageFailure } from "./usage-failure.ts";
import { versionResult } from "./version.ts";

/**
 * The CLI projection: argv in, one result out, an exit code back. The
 * global flags are taken out wherever they stand, `--version` answers and
 * `discern mcp` starts serving before anything else loads, and every other
 * line runs through the citty command tree (`command-tree.ts`). Never
 * throws: a bug becomes an `internal_error` result, a crash report and 70.
 */
export async function runCli(argv: readonly string[], io: CliEnvironment): Promise<ExitCode> {
	const extracted = extractGlobals(argv);
	const json = extracted.ok ? extracted.globals.json : argv.includes("--json");
	const color = !json && wantsColor(io.env, io.isTTY);
	// Kept for the crash path, which names the verb the line reached.
	let started: CliRun | undefined;
	try {
		if (!extracted.ok) return emit(usageFailure("help", extracted.message), "", io, { json, color });
		const { globals } = extracted;
		if (globals.version) return emit(versionResult(), "", io, { json, color });
		// `discern mcp` alone serves before the command tree loads, as --version answers: loading citty and the tree
		// first moved a garbage collection into an MCP client's first tools/list (+2.5 ms median of 50 sessions on 2
		// cores, against a 10 ms budget). The tree's `mcp` command answers the rest: its help, a word it does not take.
		if (globals.rest.length === 1 && globals.rest[0] === "mcp" && !globals.help) return await serveMcp(io, globals);
		// Loaded only past --version: citty, the registry and every verb's definition and schemas are the bulk of start-up.
		const [{ runCommandTree }, { runVerb }] = await Promise.all([import("./command-tree.ts"), import("./run-verb.ts")]);
		const line: CliRun = { io, argv, globals, json, color, verb: "help" };
		started = line;
		return await runCommandTree({
			words: globals.rest,
			help: globals.help,
			runVerb: (verb, tokens) => runVerb(line, verb, tokens),
			answer: (result) => emit(result, "", io, { json, color }),
			reach: (verb) => {
				line.verb = verb;
			},
			serveMcp: () => serveMcp(io, globals),
		});
	} catch (error) {
		const { writeCrashReport } = await import("../platform/crash-report.ts");
		const report = writeCrashReport(error, argv);
		const where = report ? ` A crash report is at ${report}.` : "";
		const message = `discern hit an internal error: ${endSentence(error instanceof Error ? error.message : String(error))}${where}`;
		io.stderr(`discern: internal error.${where}\n`);
		const result = fail(started?.verb ?? "help", "internal_error", message, ["This is a bug in discern; please report it with the crash report."]);
		emit(result, "", io, { json, color });
		return EXIT.internal;
	}
}

/** The MCP server over stdio, in the folder the line names, until stdin closes. */
async function serveMcp(io: CliEnvironment, globals: Globals): Promise<ExitCode> {
	const { serveStdio } = await import("../mcp/stdio.ts");
	return await serveStdio({ cwd: resolveCwd(io.cwd, globals.cwd), env: io.env, signal: io.signal });
}
