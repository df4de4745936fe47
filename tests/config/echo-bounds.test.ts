import { afterEach, describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { done } from "../../src/proof/done.ts";
import { ECHO_LIMIT } from "../../src/text/clip.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * What a file says comes back clipped too: a config's long keys, names and
 * patterns in its problems, and a report's repeated texts in its findings.
 */
const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});

const LONG = "k".repeat(100_000);
const SENTENCE = 1000;

describe("config problems quote clipped values", () => {
	test("a long unknown key, job name, table name, glob and pre-authorized scope", () => {
		const source = [
			`[jobs]\n${LONG} = "true"\n`,
			`[jobs.j${LONG}]\nrun = "true"\n`,
			`[gate.t${LONG}]\nx = 1\n`,
			`[scopes.web]\npaths = ["../${LONG}"]\n`,
			`[acceptance]\npre_authorized = ["s${LONG}"]\n`,
		].join("\n");
		const outcome = parseConfig(source);
		expect(outcome.ok).toBe(false);
		if (outcome.ok) return;
		expect(outcome.issues.length).toBeGreaterThanOrEqual(4);
		for (const issue of outcome.issues) {
			expect({ message: issue.message.slice(0, 60), short: issue.message.length <= SENTENCE, key: (issue.key ?? "").length <= 4 * (ECHO_LIMIT + 40) }).toEqual({
				message: issue.message.slice(0, 60),
				short: true,
				key: true,
			});
		}
	});

	test("config validate over the CLI stays small for a config full of long names", async () => {
		const r = await makeRepo({ config: `[jobs.j${LONG}]\nrun = "true"\n[scopes.web]\npaths = ["../${LONG}"]\n` });
		made.push(r);
		const run = await runDiscern(["config", "validate", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(1);
		expect(run.stdout.length).toBeLessThan(8 * 1024);
		expect(onlyJson(run.stdout).error).toBe("invalid_config");
	});
});

describe("report findings are bounded field by field", () => {
	test("500 SARIF results repeating a 100 KB rule message make a bounded answer", async () => {
		const rule = { id: "r".repeat(10_000), messageStrings: { big: { text: "m".repeat(100_000) } } };
		const results = Array.from({ length: 500 }, (_, i) => ({
			ruleIndex: 0,
			level: "error",
			message: { id: "big" },
			locations: [{ physicalLocation: { artifactLocation: { index: 0 }, region: { startLine: i + 1 } } }],
		}));
		const sarif = {
			version: "2.1.0",
			runs: [{ tool: { driver: { name: "lint", rules: [rule] } }, artifacts: [{ location: { uri: `src/${"p".repeat(20_000)}.ts` } }], results }],
		};
		const r = await makeRepo({ config: '[jobs]\nlint = "cat lint.sarif; exit 1"\n', files: { "lint.sarif": JSON.stringify(sarif) } });
		made.push(r);
		const result = await done(r.ctx(), {});
		expectValidEnvelope("done", result);
		const findings = (result.diagnostics ?? []).filter((diagnostic) => diagnostic.line !== undefined);
		expect(findings.length).toBe(500);
		for (const finding of findings) {
			expect(finding.message.startsWith("mmmm")).toBe(true);
			expect(finding.message.length).toBeLessThanOrEqual(2_100);
			expect((finding.rule ?? "").length).toBeLessThanOrEqual(300);
			expect((finding.file ?? "").length).toBeLessThanOrEqual(4_200);
		}
		// Unbounded, this answer was 500 × (100 KB + 10 KB + 20 KB) ≈ 65 MB.
		expect(JSON.stringify(result).length).toBeLessThan(4 * 1024 * 1024);
	});
});
