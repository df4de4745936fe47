import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { ECHO_LIMIT } from "../../src/text/clip.ts";
import { flagSpecs } from "../../src/usage/flag-specs.ts";
import { onlyJson, runCliInProcess, runDiscern } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * Values a person or a script typed come back clipped: a megabyte-long
 * flag, word or path gives a short answer, on every verb, in text and JSON.
 */
let repo: TestRepo;
beforeAll(async () => {
	repo = await makeRepo({ config: '[jobs]\ntest = "true"\n\n[scopes.web]\npaths = ["web/**"]\n' });
});
afterAll(async () => {
	await repo.remove();
});

const MEGABYTE = "x".repeat(1024 * 1024);
/** Generous for one message with its hints and a clipped value or two; far below any echoed megabyte. */
const SMALL = 8 * 1024;
/** A message or hint that echoes a clipped value (a few hundred characters) and its prose. */
const SENTENCE = 1000;

/** Under --json: one envelope whose message and hints are sentence-sized. */
function expectShortEnvelope(stdout: string, what: unknown): void {
	const envelope = onlyJson(stdout) as { message: string; hints?: string[] };
	expect({ what, message: envelope.message.length <= SENTENCE, hints: (envelope.hints ?? []).every((hint) => hint.length <= SENTENCE) }).toEqual({
		what,
		message: true,
		hints: true,
	});
}

/** The real CLI entry in process: the OS caps one argv entry at 128 KiB, this does not. */
const cli = (argv: string[]) => runCliInProcess(argv, repo.root);

describe("echoed values are clipped", () => {
	test("a 1 MB unknown flag, on every verb, in text and JSON", async () => {
		for (const verb of LOOSE_VERBS) {
			for (const json of [false, true]) {
				const run = await cli([...verb.name.split(" "), `--${MEGABYTE}`, ...(json ? ["--json"] : [])]);
				expect({ verb: verb.name, json, code: run.code, size: run.stdout.length + run.stderr.length }).toEqual({
					verb: verb.name,
					json,
					code: 2,
					size: expect.any(Number),
				});
				expect(run.stdout.length + run.stderr.length).toBeLessThan(SMALL);
				expect(run.stdout).toContain(`--${"x".repeat(ECHO_LIMIT - 2)}… (${1024 * 1024 + 2 - ECHO_LIMIT} more characters)`);
				if (json) expectShortEnvelope(run.stdout, verb.name);
			}
		}
	});

	test("a 1 MB value for every string flag and word of every verb", async () => {
		for (const verb of LOOSE_VERBS) {
			for (const spec of flagSpecs(verb)) {
				if (spec.kind === "boolean") continue;
				const words = verb.name.split(" ");
				const argv = spec.positional ? [...words, MEGABYTE, "--json"] : [...words, `--${spec.flag}`, MEGABYTE, "--json"];
				const run = await cli(argv);
				expect({ verb: verb.name, flag: spec.flag, code: run.code, size: run.stdout.length + run.stderr.length < SMALL }).toEqual({
					verb: verb.name,
					flag: spec.flag,
					code: run.code,
					size: true,
				});
				expect(run.code).not.toBe(70);
				expectShortEnvelope(run.stdout, [verb.name, spec.flag]);
			}
		}
	});

	test("an unknown 1 MB verb, a 1 MB word after `mcp`, a 1 MB --cwd that does not exist", async () => {
		for (const argv of [[MEGABYTE], ["mcp", MEGABYTE], ["status", "--cwd", `/${MEGABYTE}`], ["doctor", "--cwd", `/${MEGABYTE}`], ["help", MEGABYTE]]) {
			for (const json of [false, true]) {
				const run = await cli([...argv, ...(json ? ["--json"] : [])]);
				expect({ argv: argv.map((word) => word.slice(0, 20)), json, small: run.stdout.length + run.stderr.length < SMALL }).toEqual({
					argv: argv.map((word) => word.slice(0, 20)),
					json,
					small: true,
				});
				expect(run.code).not.toBe(70);
				if (json) expectShortEnvelope(run.stdout, argv[0]?.slice(0, 20));
			}
		}
	});

	test("as a real process: a flag as long as the OS allows gives a short answer", async () => {
		// Linux caps one argv entry at 128 KiB (MAX_ARG_STRLEN).
		const flag = `--${"y".repeat(120 * 1024)}`;
		const run = await runDiscern(["status", flag, "--json"], { cwd: repo.root });
		expect(run.exitCode).toBe(2);
		expect(run.stdout.length).toBeLessThan(SMALL);
		const envelope = onlyJson(run.stdout);
		expect(envelope.error).toBe("invalid_arguments");
		expect(String(envelope.message)).toMatch(/^Unknown flag `--y{198}… \(\d+ more characters\)`/);
		expect(run.stderr).toBe("");
	});
});
