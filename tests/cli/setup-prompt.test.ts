import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { onlyJson, REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * On an interactive terminal `discern setup` shows its proposal and asks
 * (consola's prompt); a yes writes what --confirmed would, a no writes
 * nothing. Anywhere else it never asks. The terminal is real: `script` runs
 * discern in a pseudo-terminal, and the test types into it.
 */
const QUESTION = "Write discern.toml and docs/map/README.md?";

const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) await r.remove();
});
async function nodeRepo(): Promise<TestRepo> {
	const r = await makeRepo({ files: { "package.json": '{"name":"shop","scripts":{"test":"bun test"}}\n', ".gitignore": "node_modules/\n" } });
	made.push(r);
	return r;
}

interface Terminal {
	/** Everything the terminal showed until discern exited. */
	output: string;
	exitCode: number;
	/** Whether the question appeared. */
	asked: boolean;
}

/**
 * Run `discern ARGS` in a pseudo-terminal; type `answer` once the question
 * shows. `shell` wraps the command (to take stdin away from the terminal).
 * The terminal gets a size: the prompt lays itself out by its columns.
 */
async function inTerminal(
	cwd: string,
	args: string,
	options: { answer?: string; env?: Record<string, string>; shell?: (command: string) => string } = {},
): Promise<Terminal> {
	const discern = `${process.execPath} ${join(REPO_ROOT, "src/main.ts")} ${args}`;
	const command = `stty cols 100 rows 40; ${options.shell ? options.shell(discern) : discern}`;
	const child = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
		cwd,
		stdin: "pipe",
		stdout: "pipe",
		stderr: "pipe",
		env: { ...process.env, TERM: "xterm", NO_COLOR: "1", CI: "", ...options.env },
	});
	let output = "";
	let asked = false;
	const reader = child.stdout.getReader();
	const decoder = new TextDecoder();
	while (true) {
		const { value, done } = await reader.read();
		if (done) break;
		output += decoder.decode(value, { stream: true });
		if (!asked && output.includes(QUESTION)) {
			asked = true;
			if (options.answer !== undefined) {
				child.stdin.write(options.answer);
				await child.stdin.flush();
			} else child.kill(); // A question nobody expected: fail now, not at the test's timeout.
		}
	}
	const exitCode = await child.exited;
	child.stdin.end();
	return { output, exitCode, asked };
}

describe("setup on an interactive terminal", () => {
	test("shows the proposal, asks, and a yes writes what --confirmed writes", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup", { answer: "y" });
		expect(run.asked).toBe(true);
		expect(run.exitCode).toBe(0);
		// The proposal is on screen before the question.
		expect(run.output.indexOf("Proposed discern.toml:")).toBeLessThan(run.output.indexOf(QUESTION));
		expect(run.output).toContain('test = "npm test"');
		expect(run.output).toContain("Wrote discern.toml and docs/map/README.md.");
		const written = await Bun.file(join(r.root, "discern.toml")).text();
		expect(written).toContain('test = "npm test"');
		expect(existsSync(join(r.root, "docs/map/README.md"))).toBe(true);

		// The same files as --confirmed writes in a twin repository.
		const twin = await nodeRepo();
		const confirmed = await runDiscern(["setup", "--confirmed"], { cwd: twin.root });
		expect(confirmed.exitCode).toBe(0);
		const twinWritten = await Bun.file(join(twin.root, "discern.toml")).text();
		expect(written.replace(/name = "[^"]*"/, "")).toBe(twinWritten.replace(/name = "[^"]*"/, ""));
	});

	test("a no writes nothing", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup", { answer: "n" });
		expect(run.asked).toBe(true);
		expect(run.exitCode).toBe(0);
		expect(run.output).toContain("Nothing written.");
		expect(run.output).toContain("discern setup --confirmed");
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
		expect(existsSync(join(r.root, "docs/map/README.md"))).toBe(false);
	});

	test("Ctrl-C at the question writes nothing", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup", { answer: "\u0003" });
		expect(run.asked).toBe(true);
		expect(run.output).toContain("Nothing written.");
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
	});

	test("--quiet silences narration, not the question", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup --quiet", { answer: "y" });
		expect(run.asked).toBe(true);
		expect(existsSync(join(r.root, "discern.toml"))).toBe(true);
	});

	test("--confirmed, --dry-run and `verify` never ask", async () => {
		const r = await nodeRepo();
		const dry = await inTerminal(r.root, "setup --dry-run");
		expect(dry.asked).toBe(false);
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
		const verify = await inTerminal(r.root, "setup verify");
		expect(verify.asked).toBe(false);
		const confirmed = await inTerminal(r.root, "setup --confirmed");
		expect(confirmed.asked).toBe(false);
		expect(existsSync(join(r.root, "discern.toml"))).toBe(true);
	});
});

describe("setup never asks without a person at a terminal", () => {
	test("no terminal at all: the proposal is the answer, nothing written", async () => {
		const r = await nodeRepo();
		const run = await runDiscern(["setup"], { cwd: r.root });
		expect(run.exitCode).toBe(0);
		expect(run.stdout).not.toContain(QUESTION);
		expect(run.stdout).toContain("Would write discern.toml.");
		expect(run.stdout).toContain("discern setup --confirmed");
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
	});

	test("stdout a terminal but stdin not", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup", { shell: (command) => `${command} < /dev/null` });
		expect(run.asked).toBe(false);
		expect(run.output).toContain("Would write discern.toml.");
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
	});

	test("stdin a terminal but stdout not", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup", { shell: (command) => `${command} | cat` });
		expect(run.asked).toBe(false);
		expect(run.output).toContain("Would write discern.toml.");
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
	});

	test("a terminal under CI", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup", { env: { CI: "true" } });
		expect(run.asked).toBe(false);
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
	});

	test("a terminal with --json: one envelope, no question", async () => {
		const r = await nodeRepo();
		const run = await inTerminal(r.root, "setup --json");
		expect(run.asked).toBe(false);
		const envelope = onlyJson(`${run.output.replace(/\r\n/g, "\n").trim()}\n`);
		expect(envelope.dry_run).toBe(true);
		expect(existsSync(join(r.root, "discern.toml"))).toBe(false);
	});
});
