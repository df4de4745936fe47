import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** `status` in text: counted nouns, relative times, and the right next action after tree drift. */

type Envelope = { ok: boolean; verb: string; error?: string; message: string; hints?: string[]; data?: Record<string, unknown> };
const json = async (argv: string[], cwd: string) => {
	const run = await runDiscern([...argv, "--json"], { cwd });
	expect(run.stderr).toBe("");
	return { exitCode: run.exitCode, envelope: onlyJson(run.stdout) as Envelope };
};

describe("status reads as a person would write it", () => {
	let broken: TestRepo;
	let drifting: TestRepo;
	beforeAll(async () => {
		broken = await makeRepo({ config: '[jobs]\ntest = "true"\n[gate]\ntimout = 3\n' });
		drifting = await makeRepo({ config: '[jobs]\nlint = "echo built > out.txt"\ntest = "true"\n' });
		// A branch of its own: on the trunk the repair is a task's (tests/verbs/trunk-voice.test.ts).
		await drifting.git("switch", "-q", "-c", "feature");
	});
	afterAll(async () => {
		await Promise.all([broken.remove(), drifting.remove()]);
	});

	test('one problem is "1 problem"', async () => {
		const run = await runDiscern(["status"], { cwd: broken.root });
		expect(run.stdout).toContain("config   invalid (1 problem)");
		expect(run.stdout).not.toContain("problems");
	});

	test("the last run's time is relative in text and ISO in JSON", async () => {
		const r = await makeRepo({ config: '[jobs]\ntest = "true"\n' });
		try {
			expect((await runDiscern(["test"], { cwd: r.root })).exitCode).toBe(0);
			const text = await runDiscern(["status"], { cwd: r.root });
			expect(text.stdout).toMatch(/last run test green (just now|\d+ s ago) on [0-9a-f]{7}/);
			const { envelope } = await json(["status"], r.root);
			const time = (envelope.data as { last_run: { time: string } }).last_run.time;
			expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
		} finally {
			await r.remove();
		}
	});

	test("after a tree_drift failure the next action is to commit the jobs' changes, never --rerun", async () => {
		const done = await json(["done"], drifting.root);
		expect((done.envelope.data as { failed_stage: string }).failed_stage).toBe("tree_drift");
		const next = async () => ((await json(["status"], drifting.root)).envelope.data as { next: { action: string; reason: string } }).next;
		// The jobs' output is still in the tree.
		const dirty = await next();
		expect(dirty.action).toBe("commit the jobs' changes (or .gitignore their output), then discern done");
		expect(dirty.reason).toContain(".gitignore");
		expect(`${dirty.action} ${dirty.reason}`).not.toContain("--rerun");
		// In text, the reason wraps to the width under the action.
		const text = await runDiscern(["status"], { cwd: drifting.root, env: { COLUMNS: "60" } });
		const after = text.stdout
			.slice(text.stdout.indexOf("\nnext  ") + 1)
			.trimEnd()
			.split("\n");
		expect(after[0]).toBe(`next  ${dirty.action}`);
		expect(after.slice(1).every((line) => line.startsWith("      ") && line.length <= 60)).toBe(true);
		expect(
			after
				.slice(1)
				.map((line) => line.trim())
				.join(" "),
		).toBe(dirty.reason);
		// Thrown away: rerunning would drift again, so the advice stays.
		await drifting.git("clean", "-fdq");
		const clean = await next();
		expect(clean.action).toBe(dirty.action);
		expect(clean.reason).toContain("discern prepare");
		expect(`${clean.action} ${clean.reason}`).not.toContain("--rerun");
	});
});
