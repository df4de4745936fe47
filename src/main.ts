#!/usr/bin/env bun
/** Entry: parse argv, run, map the result to an exit code. Nothing else. */
import { isatty } from "node:tty";
import { runCli } from "./cli/run.ts";
import { EXIT } from "./contract/exit-codes.ts";

const controller = new AbortController();
// Interrupted: abort running work (children are killed by their owners), then exit 130/143.
for (const [signal, code] of [["SIGINT", EXIT.interrupted], ["SIGTERM", EXIT.terminated]] as const) {
	process.on(signal, () => {
		controller.abort(signal);
		setTimeout(() => process.exit(code), 50);
	});
}

// Output is gathered and written once with Bun.write: setting up process.stdout's
// stream costs milliseconds that a short command like `status` should not pay.
let output = "";
const exitCode = await runCli(process.argv.slice(2), {
	cwd: process.cwd(),
	env: process.env,
	isTTY: isatty(1),
	signal: controller.signal,
	stdout: (text) => {
		output += text;
	},
	stderr: (text) => process.stderr.write(text),
});
if (output !== "") await Bun.write(Bun.stdout, output);
process.exitCode = exitCode;
