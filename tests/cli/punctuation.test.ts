import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { firstTryWords } from "../../src/usage/first-tries.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

/**
 * Messages are built from other messages (a config problem inside a
 * refusal, a "did you mean …?" inside a usage error), and each layer likes
 * to end its sentence. This drives many real refusals and reads every
 * message and hint, as JSON and as text, for doubled punctuation.
 */

/** "..", "?.", ".:", ";.", "!." … outside code spans, ellipses ("...", "…") and abbreviations. */
function doubled(text: string): string | null {
	const prose = text
		.replace(/`[^`]*`/g, "CODE")
		.replace(/\.\.\./g, "…")
		.replace(/\b(?:e\.g|i\.e|etc)\./g, "ABBR");
	const found = prose.match(/[.?!:;,][.?!:;,]/);
	return found ? `${found[0]} in: ${text}` : null;
}

let outside: string;
let bare: TestRepo;
let invalid: TestRepo;
let configured: TestRepo;
let drifting: TestRepo;
beforeAll(async () => {
	outside = await makeTempDir();
	bare = await makeRepo();
	// Two problems, the first with a "did you mean …?" of its own.
	invalid = await makeRepo({ config: '[jobs]\ntest = "true"\n[gate]\ntimout = 3\nfail_fast = "yes"\n' });
	configured = await makeRepo({ config: '[jobs]\nlint = "true"\ntest = "true"\n[scopes.web]\npaths = ["web/**"]\n' });
	drifting = await makeRepo({ config: '[jobs]\nlint = "echo built > out.txt"\ntest = "true"\n' });
	await runDiscern(["done", "--json"], { cwd: drifting.root });
});
afterAll(async () => {
	await rm(outside, { recursive: true, force: true });
	await Promise.all([bare, invalid, configured, drifting].map((repo) => repo.remove()));
});

function cases(): { where: () => string; argv: string[] }[] {
	const at = (where: () => string, ...argvs: string[][]) => argvs.map((argv) => ({ where, argv }));
	return [
		...at(
			() => outside,
			["status"],
			["done"],
			["doctor"],
			["status", "-C", "/nonexistent-discern-dir"],
			["--verbos"],
			["-x"],
			["--cwd"],
			["stauts"],
			["xylophone"],
			["accept"],
			["help", "nope"],
			...firstTryWords().map((word) => [word]),
			["mcp", "extra"],
			["status", "--verbos"],
			["status", "extra"],
			["done", "--jsn"],
			["done", "--frobnicate"],
			["docs", "--serch", "x"],
			["docs", "--search"],
			["docs", "no-such-page"],
			["docs", "a", "b"],
			["doctor", "--verbose=maybe"],
			["setup", "sideways"],
			["config"],
		),
		...at(
			() => bare.root,
			["done"],
			["prepare"],
			["config", "validate"],
			["config", "get", "gate.timeout"],
			["setup", "--agents", "claud"],
			["setup", "--agents", "nobody"],
		),
		...at(() => invalid.root, ["status"], ["done"], ["test"], ["impact"], ["config", "validate"], ["config", "set", "gate.tmeout", "5"]),
		...at(
			() => configured.root,
			["config", "get", "nope"],
			["config", "get"],
			["config", "set", "jobs", "x"],
			["config", "set", "gate.timeout", "abc"],
			["config", "set", "gate.tmeout", "5"],
			["config", "set", "gate.timeout", "{ broken"],
			["config", "validate", "x"],
			["impact", "--has", "wbe"],
			["impact", "--has", "nothing-like-it"],
			["setup"],
		),
		...at(() => drifting.root, ["done"], ["status"], ["done", "--rerun"]),
	];
}

describe("no doubled punctuation in messages and hints", () => {
	test("across many refusals, as JSON and as text", async () => {
		const problems: string[] = [];
		// One case at a time: two of them run `done` in the same repository, and would meet its lock.
		for (const { where, argv } of cases()) {
			const [json, text] = [await runDiscern([...argv, "--json"], { cwd: where() }), await runDiscern(argv, { cwd: where() })];
			const envelope = onlyJson(json.stdout) as { ok: boolean; message: string; hints?: string[]; data?: { next?: { reason: string } } };
			expect(json.stderr).toBe("");
			for (const sentence of [envelope.message, ...(envelope.hints ?? []), envelope.data?.next?.reason ?? ""]) {
				const found = doubled(sentence);
				if (found) problems.push(`discern ${argv.join(" ")}: ${found}`);
			}
			// The text rendering of a refusal is its message and hints; help pages and status bodies come along too.
			for (const line of text.stdout.split("\n")) {
				const found = doubled(line);
				if (found) problems.push(`discern ${argv.join(" ")} (text): ${found}`);
			}
		}
		expect(problems).toEqual([]);
	}, 60_000);

	test("the check itself catches what it is for", () => {
		expect(doubled("Unknown flag `--serch`; did you mean `--search`?.")).not.toBeNull();
		expect(doubled("first (line 5): unknown key..")).not.toBeNull();
		expect(doubled("The files:.")).not.toBeNull();
		expect(doubled("Run `discern -C ../shop status`, e.g. here… fine.")).toBeNull();
	});
});
