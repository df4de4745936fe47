#!/usr/bin/env bun
/** Entry: parse argv, run, map the result to an exit code. Nothing else. */
import { isatty } from "node:tty";
import { runCli } from "./cli/run.ts";
import { ENDING_SIGNALS, type EndingSignal, EXIT, signalExit } from "./contract/exit-codes.ts";
import { sameDestination } from "./platform/same-destination.ts";
import { standardErr, standardOut, writeStdout } from "./platform/streams.ts";
import { workingFolder } from "./platform/working-folder.ts";

const controller = new AbortController();
let endedBy: EndingSignal | undefined;
// A signal that would end discern (a closed terminal's HUP, Ctrl-C, TERM, …)
// aborts the running verb instead: its runner kills every job tree before the
// verb returns, and only then does discern exit 128+n. A verb that does not
// return in time is not waited for; the runner's exit hook still kills what
// is left of its jobs.
for (const signal of ENDING_SIGNALS) {
	process.on(signal, () => {
		if (endedBy !== undefined) return;
		endedBy = signal;
		controller.abort(signal);
		setTimeout(() => process.exit(signalExit(signal)), 10_000).unref();
	});
}

// Output is gathered and written once, to fd 1 directly (writeStdout): setting up process.stdout's
// stream costs milliseconds that a short command like `status` should not pay.
let output = "";
const exitCode = await runCli(process.argv.slice(2), {
	cwd: workingFolder(process.env),
	env: process.env,
	isTTY: isatty(1),
	stderrIsTTY: isatty(2),
	sharedOutput: sameDestination(1, 2),
	// Read only for a terminal: a pipe has no width (help then lays out for COLUMNS or 80).
	...(isatty(1) && standardOut().columns > 0 ? { columns: standardOut().columns } : {}),
	stdinIsTTY: isatty(0),
	signal: controller.signal,
	stdout: (text) => {
		output += text;
	},
	stderr: (text) => standardErr().write(text),
});
// After a hang-up the terminal may be gone: the exit status is what is left to say (writeStdout never throws).
const delivered = output === "" || (await writeStdout(output));
// 128+n only when the signal cost the result: a run that finished green before the signal landed stays 0.
process.exitCode = exitCode !== EXIT.ok && endedBy !== undefined ? signalExit(endedBy) : !delivered ? EXIT.failure : exitCode;
