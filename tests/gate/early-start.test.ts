import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Narration } from "../../src/contract/context.ts";
import type { DoneData } from "../../src/verbs/done/schema.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { PlannedJob } from "../../src/gate/plan.ts";
import { locateRepository } from "../../src/git/repository.ts";
import { readBranchClues, readInitDefault } from "../../src/git/trunk.ts";
import { startEarly } from "../../src/verbs/done/early-start.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * `done` starts its jobs once the tree is vouched for and the trunk named,
 * while the rest of the judgement is read (src/verbs/done/early-start.ts).
 * What that head start must never change: a refusal still ends with no job
 * alive and no run left behind, and the jobs that earn the Proof were told
 * the trunk the Proof is judged against.
 */
const made: TestRepo[] = [];
const scratch: string[] = [];
afterAll(async () => {
	await Promise.all([...made.map((r) => r.remove()), ...scratch.map((dir) => rm(dir, { recursive: true, force: true }))]);
});

async function outside(): Promise<string> {
	const dir = await makeTempDir("discern-early-");
	scratch.push(dir);
	return dir;
}

async function gate(r: TestRepo, env: Record<string, string>) {
	const commands: string[] = [];
	const narrate = (event: Narration) => {
		if (event.type === "command") commands.push(event.label);
	};
	const result = await invokeVerb("done", r.ctx({ env: { PATH: process.env.PATH, ...env }, narrate }), {});
	expectValidEnvelope("done", result);
	return { result, data: result.data as DoneData, commands };
}

const runs = async (r: TestRepo) => (await readdir(join(r.root, ".git", "discern", "runs")).catch(() => [])).length;

describe("done's early start", () => {
	test("a refusal from the judgement read alongside the jobs leaves no job alive and no run behind", async () => {
		const standard = (limit: number) => `[standards.coverage]\nrun = "echo DISCERN_METRIC coverage 95"\ndirection = "up"\nlimit = ${limit}\nmetric = "coverage"\n`;
		// The job forks a child that would write the marker after the refusal, were it left alive.
		const jobs = `[jobs]\ntest = "(sleep 0.6; echo ran > \\"$MARKER\\") & sleep 0.6"\n`;
		const r = await makeRepo({ config: `${jobs}${standard(90)}` });
		made.push(r);
		await r.git("switch", "-q", "-c", "feature");
		await r.write("discern.toml", `${jobs}${standard(85)}`);
		await r.commitAll("loosen");
		const marker = join(await outside(), "marker");
		const before = await runs(r);

		const { result, data } = await gate(r, { MARKER: marker });
		expect(result.ok).toBe(false);
		expect(data.failed_stage).toBe("standards");
		expect(await survivors(r.root)).toEqual([]);
		await Bun.sleep(900);
		expect(existsSync(marker)).toBe(false);
		expect(await runs(r)).toBe(before);
	});

	test("discarded once its jobs run, the run kills their whole trees and removes its logs", async () => {
		const r = await makeRepo({ config: `[jobs]\ntest = "(sleep 0.6; echo ran > \\"$MARKER\\") & sleep 0.6"\n` });
		made.push(r);
		const marker = join(await outside(), "marker");
		const { early, commands } = await startOn(r, { MARKER: marker });
		const deadline = Date.now() + 5000;
		while (commands.length === 0 && Date.now() < deadline) await Bun.sleep(5);
		expect(commands).toEqual(["test"]);
		expect(await runs(r)).toBe(1);
		await early.discard();
		expect(await survivors(r.root)).toEqual([]);
		expect(await runs(r)).toBe(0);
		await Bun.sleep(900);
		expect(existsSync(marker)).toBe(false);
	});

	test("admitted, the run takes the judgement's drift check and its later phases (a failure lists them skipped)", async () => {
		const later = [{ label: "scope:web", stage: "scopes" as const, kind: "scope_gate" as const, exitDecides: true, commands: ["true"], timeout: 0 }];
		const green = await makeRepo({ config: `[jobs]\ntest = "true"\n` });
		const red = await makeRepo({ config: `[jobs]\ntest = "exit 3"\n` });
		made.push(green, red);
		const checked: string[][] = [];
		const afterPhase = async (phase: readonly PlannedJob[]) => {
			checked.push(phase.map((job) => job.label));
			return null;
		};
		const passed = await (await startOn(green)).early.admit({ afterPhase, later: [later] });
		expect(passed.report.runs.map((run) => `${run.job.label}:${run.outcome}`)).toEqual(["test:ok", "scope:web:ok"]);
		expect(checked).toEqual([["test"], ["scope:web"]]);
		const failed = await (await startOn(red)).early.admit({ afterPhase, later: [later] });
		expect(failed.report.runs.map((run) => `${run.job.label}:${run.outcome}`)).toEqual(["test:failed", "scope:web:skipped"]);
	});

	test("a trunk its committed config renames starts the run over: the Proof's jobs were told that trunk", async () => {
		// `main` is what git's clues name first; its committed discern.toml says the trunk is `develop`.
		const config = (out: string) => `[repository]\ntrunk = "develop"\n\n[jobs]\ntest = "sleep 0.4; printf '%s\\\\n' \\"$DISCERN_TRUNK\\" >> '${out}'"\n`;
		const out = join(await outside(), "trunks");
		const r = await makeRepo({ config: config(out) });
		made.push(r);
		await r.git("branch", "develop");
		await r.git("switch", "-q", "-c", "feature");
		await r.write("notes.txt", "work\n");
		await r.commitAll("work");

		const { result } = await gate(r, { HOME: await outside(), GIT_CONFIG_NOSYSTEM: "1" });
		expect(result.ok).toBe(true);
		expect(await readFile(out, "utf8")).toBe("develop\n");
		const proof = JSON.parse(await readFile(join(r.root, ".git", "discern", "proof.json"), "utf8")) as { judgement: { trunk: { name: string } } };
		expect(proof.judgement.trunk.name).toBe("develop");
	});

	test("a job that changes the tree at once is tree drift, never the author's dirty tree", async () => {
		const r = await makeRepo({ config: `[jobs]\nbuild = "echo made > made.txt"\n` });
		made.push(r);
		const { result, data } = await gate(r, {});
		expect(result.ok).toBe(false);
		expect(data.failed_stage).toBe("tree_drift");
		expect(data.drift?.files).toEqual(["made.txt"]);
	});
});

/** `startEarly` on a clean committed repository, as `done` calls it once the tree is vouched for. */
async function startOn(r: TestRepo, env: Record<string, string> = {}) {
	const located = await locateRepository(r.root);
	if (!located.found) throw new Error(located.reason);
	const parsed = parseConfig(await readFile(join(r.root, "discern.toml"), "utf8"));
	if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
	const commands: string[] = [];
	const ctx = { ...r.ctx({ env: { PATH: process.env.PATH, ...env } }), repository: located.repository, narrate: (event: Narration) => void (event.type === "command" && commands.push(event.label)) };
	const head = (await r.git("rev-parse", "HEAD")).trim();
	const reads = { clues: readBranchClues(r.root), initDefault: readInitDefault(r.root), proof: Promise.resolve(null), last: Promise.resolve(null) };
	const early = await startEarly(ctx, located.repository, parsed.config, head, reads, false);
	if (!early) throw new Error("the run did not start early");
	return { early, commands };
}
