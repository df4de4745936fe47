import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { readdir, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { type AnyVerb, findVerb, type VerbName } from "../../src/registry.ts";
import { type CliRun, onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * The bad-input corpus (SPEC §12): every broken discern.toml must come back
 * as one clean `invalid_config` result naming the problem and its line —
 * never a crash (exit 70), never a usage error (exit 2), never noise on
 * stderr. `status` still reports (the config is an observation there) and
 * `doctor` fails its config check.
 */

const FIXTURES = join(import.meta.dir, "../fixtures/broken-config");

const Expectation = v.strictObject({
	valid: v.boolean(),
	line: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
	contains: v.optional(v.string()),
});
type Expectation = v.InferOutput<typeof Expectation>;

const EXPECTED = v.parse(v.record(v.string(), Expectation), await Bun.file(join(FIXTURES, "expected.json")).json());
const FIXTURE_NAMES = (await readdir(FIXTURES)).filter((name) => name.endsWith(".toml")).sort();

interface Case {
	name: string;
	bytes: () => Uint8Array;
	expected: Expectation;
}

/** More than 1 MiB of otherwise valid TOML: generated here rather than committed. */
const HUGE_BYTES = 1024 * 1024 + 64 * 1024;
function hugeConfig(): Uint8Array {
	const header = "[gate]\ntimeout = 5\n";
	const line = "# padding so that this file is far larger than any real configuration\n";
	return new TextEncoder().encode(header + line.repeat(Math.ceil(HUGE_BYTES / line.length)));
}

const CASES: Case[] = [
	...FIXTURE_NAMES.map((name) => ({
		name,
		bytes: () => new Uint8Array(readFileSync(join(FIXTURES, name))),
		expected: EXPECTED[name] ?? { valid: false, contains: "expected.json has no entry for this fixture" },
	})),
	{ name: "generated-huge.toml", bytes: hugeConfig, expected: { valid: false, contains: "limit" } },
];

interface Runs {
	config: CliRun;
	status?: CliRun;
	doctor?: CliRun;
}

const repos: TestRepo[] = [];
const runs = new Map<string, Runs>();

/** Run `task` over `items` with at most `limit` in flight: fast, without starving the machine. */
async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
	const queue = [...items];
	const workers = Array.from({ length: limit }, async () => {
		for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
	});
	await Promise.all(workers);
}

beforeAll(async () => {
	await pool(CASES, Math.max(4, availableParallelism() * 2), async (fixture) => {
		const repo = await makeRepo({ commit: false });
		repos.push(repo);
		await writeFile(join(repo.root, "discern.toml"), fixture.bytes());
		await repo.commitAll("add the fixture config");
		const at = ["--json", "-C", repo.root];
		const config = await runDiscern(["config", "validate", ...at]);
		if (fixture.expected.valid) {
			runs.set(fixture.name, { config });
			return;
		}
		const [status, doctor] = await Promise.all([runDiscern(["status", ...at]), runDiscern(["doctor", ...at])]);
		runs.set(fixture.name, { config, status, doctor });
	});
}, 120_000);

afterAll(async () => {
	await Promise.all(repos.map((repo) => repo.remove()));
});

/** The registry entry for `name`, narrowed to that verb so its envelope parses to a typed result. */
function registered<N extends VerbName>(name: N): Extract<AnyVerb, { name: N }> {
	const verb = findVerb(name);
	if (!verb || verb.name !== name) throw new Error(`verb ${name} is not in the registry`);
	return verb as Extract<AnyVerb, { name: N }>;
}

/** The quiet-JSON contract, then the verb's registry envelope (whose `verb` literal must match). */
function envelopeOf<S extends v.GenericSchema>(name: VerbName, schema: S, run: CliRun): v.InferOutput<S> {
	expect(run.exitCode).not.toBe(70);
	expect(run.exitCode).not.toBe(2);
	expect(run.stderr).toBe("");
	const json = onlyJson(run.stdout);
	expect(json.verb).toBe(name);
	const parsed = v.safeParse(schema, json);
	if (!parsed.success) throw new Error(`${name} envelope does not match the registry: ${v.summarize(parsed.issues)}\n${run.stdout}`);
	return parsed.output;
}

const CONFIG = registered("config validate").envelope;
const STATUS = registered("status").envelope;
const DOCTOR = registered("doctor").envelope;

function runsOf(name: string): Runs {
	const found = runs.get(name);
	if (!found) throw new Error(`no runs recorded for ${name} (did beforeAll fail?)`);
	return found;
}

test("the corpus is big enough and expected.json describes exactly its files", () => {
	expect(FIXTURE_NAMES.length).toBeGreaterThanOrEqual(18);
	expect(Object.keys(EXPECTED).sort()).toEqual(FIXTURE_NAMES);
	for (const name of FIXTURE_NAMES) expect(name).toMatch(/^\d\d-[a-z0-9-]+\.toml$/);
	const kinds = Object.values(EXPECTED);
	expect(kinds.some((kind) => kind.valid)).toBe(true);
	expect(kinds.filter((kind) => !kind.valid).length).toBeGreaterThanOrEqual(18);
});

for (const fixture of CASES) {
	const { valid, line, contains } = fixture.expected;
	describe(fixture.name, () => {
		test(`config validate --json: exit ${valid ? 0 : 1}, one clean envelope`, () => {
			const { config } = runsOf(fixture.name);
			const result = envelopeOf("config validate", CONFIG, config);
			expect(config.exitCode).toBe(valid ? 0 : 1);
			expect(result.ok).toBe(valid);
			if (result.ok) {
				expect(result.data?.valid).toBe(true);
				expect(result.data?.issues).toEqual([]);
				return;
			}
			expect(result.error).toBe("invalid_config");
			expect(result.hints.length).toBeGreaterThanOrEqual(1);
			expect(result.data?.valid).toBe(false);
			const issues = result.data?.issues ?? [];
			expect(issues.length).toBeGreaterThanOrEqual(1);
			const first = issues[0];
			if (line !== undefined) expect(first?.line).toBe(line);
			if (contains !== undefined) expect(first?.message).toContain(contains);
		});

		if (valid) return;

		test("status --json: exit 0, config invalid, next action is config validate", () => {
			const { status } = runsOf(fixture.name);
			if (!status) throw new Error("status did not run");
			const result = envelopeOf("status", STATUS, status);
			expect(status.exitCode).toBe(0);
			expect(result.ok).toBe(true);
			expect(result.data?.project.config).toBe("invalid");
			expect(result.data?.project.config_issues).toBeGreaterThanOrEqual(1);
			expect(result.data?.next.action).toBe("discern config validate");
		});

		test("doctor --json: exit 1, checks_failed, the config check fails", () => {
			const { doctor } = runsOf(fixture.name);
			if (!doctor) throw new Error("doctor did not run");
			const result = envelopeOf("doctor", DOCTOR, doctor);
			expect(doctor.exitCode).toBe(1);
			expect(result.ok).toBe(false);
			if (result.ok) return;
			expect(result.error).toBe("checks_failed");
			expect(result.hints.length).toBeGreaterThanOrEqual(1);
			expect(result.data?.checks.find((check) => check.id === "config")?.state).toBe("fail");
		});
	});
}
