#!/usr/bin/env bun
/** Entry: parse argv, run, map the result to an exit code. Nothing else. */
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

const exitCode = await runCli(process.argv.slice(2), {
	cwd: process.cwd(),
	env: process.env,
	isTTY: process.stdout.isTTY === true,
	signal: controller.signal,
	stdout: (text) => process.stdout.write(text),
	stderr: (text) => process.stderr.write(text),
});
if (exitCode !== EXIT.ok || !process.argv.includes("mcp")) process.exitCode = exitCode;
