import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import Ajv2020 from "ajv/dist/2020.js";
import * as v from "valibot";
import pkg from "../../package.json" with { type: "json" };
import { VersionEnvelope } from "../../src/cli/version.ts";
import { findVerb } from "../../src/registry.ts";
import { firstTry, firstTryWords } from "../../src/usage/first-tries.ts";
import { onlyJson, REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/repo.ts";

/** discern tried the way a newcomer tries a CLI: typos, short flags, other tools' verbs. */

let outside: string;
beforeAll(async () => {
	outside = await makeTempDir();
});
afterAll(async () => {
	await rm(outside, { recursive: true, force: true });
});

type Envelope = { ok: boolean; verb: string; error?: string; message: string; hints?: string[]; data?: Record<string, unknown> };
const json = async (argv: string[], cwd = outside) => {
	const run = await runDiscern([...argv, "--json"], { cwd });
	expect(run.stderr).toBe("");
	return { exitCode: run.exitCode, envelope: onlyJson(run.stdout) as Envelope };
};

describe("global flags take part in did-you-mean", () => {
	test("`discern --verbos` suggests --verbose: a flag, not an unknown verb", async () => {
		const { exitCode, envelope } = await json(["--verbos"]);
		expect(exitCode).toBe(2);
		expect(envelope.error).toBe("invalid_arguments");
		expect(envelope.message).toBe("Unknown flag `--verbos`; did you mean `--verbose`?");
	});

	test("after a verb with no flags of its own, a global flag is still suggested and nobody says it takes none", async () => {
		const run = await runDiscern(["status", "--verbos"], { cwd: outside });
		expect(run.exitCode).toBe(2);
		expect(run.stdout).toContain("Unknown flag `--verbos` for `discern status`; did you mean `--verbose`?");
		const far = await json(["status", "--frobnicate"]);
		expect(far.envelope.message).not.toContain("no flags");
		expect(far.envelope.message).toContain("takes only the global flags: --json, --cwd, --verbose");
	});

	test("a verb's own flags and the global ones are candidates together", async () => {
		expect((await json(["done", "--jsn"])).envelope.message).toContain("did you mean `--json`?");
		expect((await json(["done", "--rerum"])).envelope.message).toContain("did you mean `--rerun`?");
		const listed = (await json(["done", "--frobnicate"])).envelope.message;
		expect(listed).toContain("its flags: --dry-run, --rerun, --standalone");
		expect(listed).toContain("global flags: --json, --cwd");
	});
});

describe("-v and -h", () => {
	test("`discern -v` prints the version like --version", async () => {
		const short = await runDiscern(["-v"]);
		expect([short.exitCode, short.stdout, short.stderr]).toEqual([0, `discern ${pkg.version}\n`, ""]);
	});

	test("`discern -h` is `discern help`; `discern done -h` is `discern help done`", async () => {
		const [short, long, verbShort, verbHelp] = await Promise.all([
			runDiscern(["-h"]),
			runDiscern(["help"]),
			runDiscern(["done", "-h"]),
			runDiscern(["help", "done"]),
		]);
		expect(short.exitCode).toBe(0);
		expect(short.stdout).toBe(long.stdout);
		expect(verbShort.stdout).toBe(verbHelp.stdout);
		expect(verbShort.stdout).toContain("Usage: discern done");
	});
});

describe("--version --json", () => {
	test("is one envelope: ok, verb `version`, the message, and the version as data", async () => {
		for (const argv of [["--version"], ["-v"], ["status", "--version"]]) {
			const { exitCode, envelope } = await json(argv);
			expect(exitCode).toBe(0);
			expect(envelope).toEqual({ ok: true, verb: "version", message: `discern ${pkg.version}`, data: { version: pkg.version } });
			expect(v.safeParse(VersionEnvelope, envelope).success).toBe(true);
		}
	});

	test("validates against the published schema, like every verb's envelope", async () => {
		const published = JSON.parse(await Bun.file(`${REPO_ROOT}/schema/discern-results.schema.json`).text()) as object;
		const validate = new Ajv2020({ strict: false }).compile(published);
		const { envelope } = await json(["--version"]);
		expect(validate(envelope)).toBe(true);
	});
});

describe("likely first tries point at the right verb, with the reason", () => {
	test("init → setup, check → prepare or done", async () => {
		const init = await json(["init"]);
		expect(init.exitCode).toBe(2);
		expect(init.envelope.error).toBe("unknown_command");
		expect(init.envelope.message).toContain("Did you mean `discern setup`?");
		expect(init.envelope.message).toContain("detects the stack");
		const check = (await json(["check"])).envelope.message;
		expect(check).toContain("Did you mean `discern prepare` or `discern done`?");
		expect(check).toContain("fast checks");
		const text = await runDiscern(["init"], { cwd: outside });
		expect(text.stdout).toContain("Did you mean `discern setup`?");
	});

	test("each of install, run, lint, verify, ci names what does that job here", async () => {
		const expected: Record<string, string> = {
			install: "discern setup",
			run: "discern done",
			lint: "discern prepare",
			verify: "discern done",
			ci: "discern done",
		};
		for (const [word, command] of Object.entries(expected)) {
			const { envelope } = await json([word]);
			expect(envelope.message).toContain(`Did you mean \`${command}`);
			expect(envelope.message).toContain(firstTry(word)?.reason ?? "(no reason)");
		}
		// `help WORD` answers the same way.
		expect((await json(["help", "init"])).envelope.message).toContain("`discern setup`");
	});

	test("every suggested command exists in this build", async () => {
		for (const word of firstTryWords()) {
			for (const command of firstTry(word)?.commands ?? []) {
				const [discern, verb, ...rest] = command.split(" ");
				expect(discern).toBe("discern");
				const run = await runDiscern([verb ?? "", ...rest, "--help", "--json"], { cwd: outside });
				expect(run.exitCode).toBe(0);
				const envelope = onlyJson(run.stdout) as Envelope;
				if (verb?.startsWith("-")) expect(envelope.verb).toBe("version");
				// A sub-command is named by two words (`config validate`).
				else expect((envelope.data?.verb as { name: string }).name).toBe(findVerb(`${verb} ${rest[0]}`) ? `${verb} ${rest[0]}` : (verb ?? ""));
			}
		}
	}, 30_000);

	test("a typo still gets its nearest verb; a far-fetched word gets none", async () => {
		expect((await json(["stauts"])).envelope.message).toBe("Unknown verb `stauts`. Did you mean `status`?");
		expect((await json(["xylophone"])).envelope.message).toBe("Unknown verb `xylophone`.");
	});
});
