import { afterEach, describe, expect, test } from "bun:test";
import { done } from "../../src/proof/done.ts";
import type { DoneData } from "../../src/proof/done-schema.ts";
import { parseMetrics } from "../../src/standards/metrics.ts";
import { judge } from "../../src/standards/verdict.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

describe("metrics and verdicts", () => {
	test("DISCERN_METRIC lines: the last occurrence wins, anything else is ignored", () => {
		const metrics = parseMetrics(
			"DISCERN_METRIC coverage 80\nnoise DISCERN_METRIC x 1\n  DISCERN_METRIC coverage 91.5  \nDISCERN_METRIC bad abc\nDISCERN_METRIC tests 1e3\n",
		);
		expect([...metrics]).toEqual([
			["coverage", 91.5],
			["tests", 1000],
		]);
	});

	const up = { run: "x", direction: "up" as const, limit: 90, margin: 0 };
	const down = { run: "x", direction: "down" as const, limit: 10, margin: 0 };
	const m = (entries: Record<string, number>) => new Map(Object.entries(entries));

	test("up is a floor, down a ceiling; equal holds, strictly better improves", () => {
		expect(judge("c", up, m({ c: 90 })).verdict).toBe("held");
		expect(judge("c", up, m({ c: 90.1 })).verdict).toBe("improved");
		expect(judge("c", up, m({ c: 89 })).verdict).toBe("regressed");
		expect(judge("w", down, m({ w: 9 })).verdict).toBe("improved");
		expect(judge("w", down, m({ w: 11 })).verdict).toBe("regressed");
	});

	test("metric, per and scale", () => {
		const ratio = { ...up, metric: "covered", per: "total", scale: 100 };
		expect(judge("coverage", ratio, m({ covered: 95, total: 100 }))).toMatchObject({ verdict: "improved", value: 95 });
		expect(judge("coverage", ratio, m({ covered: 95 })).verdict).toBe("unmeasured");
		expect(judge("coverage", ratio, m({ covered: 95, total: 0 })).verdict).toBe("unmeasured");
		expect(judge("coverage", up, m({})).problem).toContain("DISCERN_METRIC coverage");
	});
});

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});

const standard = (limit: number, run = "echo DISCERN_METRIC coverage 91; exit 3") =>
	`[jobs]\ntest = "true"\n[standards.coverage]\nrun = "${run}"\ndirection = "up"\nlimit = ${limit}\n`;

async function onBranch(trunkConfig: string, branchConfig: string): Promise<TestRepo> {
	const r = await makeRepo({ config: trunkConfig });
	made.push(r);
	await r.git("switch", "-q", "-c", "feature");
	await r.write("discern.toml", branchConfig);
	await r.commitAll("branch config");
	return r;
}

async function gate(r: TestRepo) {
	const result = await done(r.ctx(), {});
	expectValidEnvelope("done", result);
	return { result, data: result.data as DoneData };
}

describe("standards in done", () => {
	test("measured alongside the tests; the metric decides, not the exit code; readings go in the Proof", async () => {
		const r = await onBranch(standard(90), standard(90));
		const { result, data } = await gate(r);
		expect(result.ok).toBe(true);
		expect(data.standards).toEqual([{ name: "coverage", verdict: "improved", value: 91, limit: 90 }]);
		expect(result.steps?.find((step) => step.label === "standard:coverage")).toMatchObject({ outcome: "ok", exit_code: 3, stage: "standards" });
		const proof = JSON.parse(await Bun.file(`${r.root}/.git/discern/proof.json`).text()) as { standards: unknown[] };
		expect(proof.standards).toEqual(data.standards);
	});

	test("a regressed standard fails the gate at the standards stage", async () => {
		const r = await onBranch(standard(92), standard(92));
		const { result, data } = await gate(r);
		expect(result.ok).toBe(false);
		expect(data.failed_stage).toBe("standards");
		expect(result.diagnostics?.[0]?.message).toBe("standard coverage regressed: 91 is past its floor of 92");
	});

	test("a standard that prints no metric cannot pass", async () => {
		const r = await onBranch(standard(90, "echo nothing here"), standard(90, "echo nothing here"));
		const { data } = await gate(r);
		expect(data.standards[0]?.verdict).toBe("unmeasured");
		expect(data.failed_stage).toBe("standards");
	});

	test("never loosen: a lower floor is refused before anything runs, though the branch's own measurement (91) would pass", async () => {
		const r = await onBranch(standard(90), standard(85));
		const { result, data } = await gate(r);
		expect(result.ok).toBe(false);
		expect(data.failed_stage).toBe("standards");
		expect(result.message).toContain("standard `coverage` lowered its floor: limit 90 → 85");
		expect(data.loosened).toEqual([{ standard: "coverage", field: "limit", before: "90", after: "85" }]);
		expect(result.steps).toBeUndefined();
	});

	test("never loosen: a raised ceiling, and every changed definition field, each old → new", async () => {
		const ceiling = (limit: number, extra = "") =>
			`[jobs]\ntest = "true"\n[standards.warnings]\nrun = "echo DISCERN_METRIC w 3"\ndirection = "down"\nlimit = ${limit}\nmetric = "w"\n${extra}`;
		const raised = await onBranch(ceiling(10), ceiling(12));
		expect((await gate(raised)).result.message).toContain("standard `warnings` raised its ceiling: limit 10 → 12");
		const redefined = await onBranch(ceiling(10), ceiling(10, 'per = "files"\nscale = 100\n').replace('metric = "w"', 'metric = "warnings_total"'));
		const { result, data } = await gate(redefined);
		expect(data.failed_stage).toBe("standards");
		expect(data.loosened).toEqual([
			{ standard: "warnings", field: "metric", before: '"w"', after: '"warnings_total"' },
			{ standard: "warnings", field: "per", before: null, after: '"files"' },
			{ standard: "warnings", field: "scale", before: null, after: "100" },
		]);
		expect(result.message).toContain('standard `warnings` changed its definition: metric "w" → "warnings_total"');
		expect(result.message).toContain('per (unset) → "files"');
		const flipped = await onBranch(ceiling(10), ceiling(10).replace('"down"', '"up"'));
		expect((await gate(flipped)).result.message).toContain('direction "down" → "up"');
	});

	test("never loosen: a changed definition or a deleted standard is refused; a raised floor and a new standard pass", async () => {
		const changed = await onBranch(standard(90), standard(90, "echo DISCERN_METRIC coverage 99"));
		expect((await gate(changed)).result.message).toContain(
			'changed its definition: run "echo DISCERN_METRIC coverage 91; exit 3" → "echo DISCERN_METRIC coverage 99"',
		);
		const deleted = await onBranch(standard(90), '[jobs]\ntest = "true"\n');
		const gone = await gate(deleted);
		expect(gone.result.ok).toBe(false);
		expect(gone.data.failed_stage).toBe("standards");
		expect(gone.result.message).toContain("standard `coverage` was deleted");
		expect(gone.data.loosened).toEqual([{ standard: "coverage", field: "standard", before: "declared", after: null }]);
		const raised = await onBranch(standard(90), standard(91));
		expect((await gate(raised)).result.ok).toBe(true);
		const added = await onBranch('[jobs]\ntest = "true"\n', standard(90));
		expect((await gate(added)).result.ok).toBe(true);
	});

	test("a trunk without discern.toml: the check is skipped and the result says so", async () => {
		const r = await makeRepo({});
		made.push(r);
		await r.git("switch", "-q", "-c", "feature");
		await r.write("discern.toml", standard(90));
		await r.commitAll("adopt discern");
		const { result } = await gate(r);
		expect(result.ok).toBe(true);
		expect(result.hints?.some((hint) => hint.startsWith("WARNING: the never-loosen check was skipped: the trunk `main` has no committed discern.toml"))).toBe(
			true,
		);
	});

	test("a trunk whose committed discern.toml does not validate: a loud warning, not a failure, even for a branch that dropped every standard", async () => {
		const r = await makeRepo({ config: `${standard(90)}[gate]\ntimout = 1\n` });
		made.push(r);
		await r.git("switch", "-q", "-c", "feature");
		await r.write("discern.toml", '[jobs]\ntest = "true"\n');
		await r.commitAll("drop the standard and fix the typo");
		const { result } = await gate(r);
		expect(result.ok).toBe(true);
		expect(result.hints).toContain(
			"WARNING: the never-loosen check was skipped: the trunk `main`'s committed discern.toml does not validate, so nothing stops this branch from loosening its standards.",
		);
	});

	test("a branch cannot escape the check by naming another trunk", async () => {
		const r = await onBranch(standard(90), `${standard(10)}[repository]\ntrunk = "feature"\n`);
		const { result, data } = await gate(r);
		expect(result.ok).toBe(false);
		expect(data.failed_stage).toBe("standards");
		expect(result.message).toContain("lowered its floor: limit 90 → 10");
		expect(result.message).toContain("[repository].trunk names `feature`, but the trunk is `main`");
	});

	test("a project whose trunk is not main: the trunk's own committed config names it", async () => {
		const r = await makeRepo({ config: `${standard(90)}[repository]\ntrunk = "develop"\n` });
		made.push(r);
		await r.git("branch", "develop");
		await r.git("switch", "-q", "-c", "feature", "develop");
		await r.write("x.txt", "work");
		await r.commitAll("work");
		const { result } = await gate(r);
		expect(result.ok).toBe(true);
	});
});
