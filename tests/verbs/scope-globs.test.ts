import { afterEach, describe, expect, test } from "bun:test";
import { done } from "../../src/proof/done.ts";
import { impact } from "../../src/verbs/impact/impact.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * Scope patterns that a backtracking matcher takes minutes on (16
 * consecutive `**\/` against a 20-deep path took ~50 s), in real
 * repositories through `impact` and `done`. Each test asserts the answer;
 * the time is scripts/bench.ts's to measure.
 */
const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});

const DEEP = Array.from({ length: 20 }, (_, i) => `d${i}`).join("/");
const STARS = "**/".repeat(16);
const CONFIG = `[jobs]
test = "true"

[scopes.deep]
paths = ["${STARS}target.txt"]
gate = "echo deep-gate"

[scopes.stars]
paths = ["${STARS}${"*a".repeat(12)}*b"]
gate = "echo stars-gate"

[scopes.other]
paths = ["${STARS}elsewhere/x.txt"]
gate = "exit 1"
`;

async function repo(): Promise<TestRepo> {
	const r = await makeRepo({ config: CONFIG, files: { [`${DEEP}/file.txt`]: "x\n" } });
	made.push(r);
	return r;
}

describe("pathological scope globs", () => {
	test("impact classifies 20-deep paths against 16 consecutive **/ and many *", async () => {
		const r = await repo();
		await r.write(`${DEEP}/target.txt`, "changed\n");
		await r.write(`${DEEP}/${"a".repeat(200)}b`, "changed\n");
		await r.write(`${DEEP}/${"a".repeat(200)}`, "not a stars path\n");
		const result = await impact(r.ctx(), {});
		expectValidEnvelope("impact", result);
		expect(result.ok).toBe(true);
		expect(result.data?.scopes).toEqual(["deep", "stars", "code"]);
		expect(result.data?.per_scope.map((entry) => [entry.scope, entry.paths])).toEqual([
			["deep", 1],
			["stars", 1],
			["other", 0],
		]);
	});

	test("done runs exactly the scope gates those patterns select", async () => {
		const r = await repo();
		await r.git("switch", "-q", "-c", "feature");
		await r.write(`${DEEP}/target.txt`, "changed\n");
		await r.commitAll("touch the deep scope");
		const result = await done(r.ctx(), {});
		expectValidEnvelope("done", result);
		expect(result.ok).toBe(true);
		expect((result.data as { scopes_changed: string[] }).scopes_changed).toEqual(["deep"]);
		const labels = result.steps?.map((step) => step.label) ?? [];
		expect(labels).toContain("scope:deep");
		expect(labels).not.toContain("scope:stars");
		expect(labels).not.toContain("scope:other");
	});
});
