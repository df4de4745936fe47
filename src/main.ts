#!/usr/bin/env bun
/** Entry: parse argv, run, map the result to an exit code. Nothing else. */
import { isatty } from "node:tty";
import { runCli } from "./cli/run.ts";
import { guardStandardStreams, writeStdout } from "./cli/streams.ts";
import { EXIT, type ExitCode } from "./contract/exit-codes.ts";

guardStandardStreams();
const controller = new AbortController();
let interruptedWith: ExitCode | undefined;
// SIGINT/SIGTERM abort the running verb, whose runner kills every job tree
// before the verb returns; only then does discern exit with 130/143. A verb
// that does not return in time is not waited for.
for (const [signal, code] of [["SIGINT", EXIT.interrupted], ["SIGTERM", EXIT.terminated]] as const) {
	process.on(signal, () => {
		interruptedWith ??= code;
		controller.abort(signal);
		setTimeout(() => process.exit(code), 10_000).unref();
	});
}

// Output is gathered and written once with Bun.write: setting up process.stdout's
// stream costs milliseconds that a short command like `status` should not pay.
let output = "";
const exitCode = await runCli(process.argv.slice(2), {
	cwd: process.cwd(),
	env: process.env,
	isTTY: isatty(1),
	stderrIsTTY: isatty(2),
	signal: controller.signal,
	stdout: (text) => {
		output += text;
	},
	stderr: (text) => process.stderr.write(text),
});
const delivered = output === "" || (await writeStdout(output));
// 130/143 only when the interrupt cost the result: a run that finished green before the signal landed stays 0.
process.exitCode = !delivered ? EXIT.failure : exitCode !== EXIT.ok && interruptedWith !== undefined ? interruptedWith : exitCode;
