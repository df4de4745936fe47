import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import type { AnyResult } from "../../src/contract/envelope.ts";
import type { WorktreeEnsureData } from "../../src/verbs/worktree/schema.ts";
import { worktreeEnsureVerb } from "../../src/verbs/worktree/verb.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { BASIC_CONFIG, makeRepo, type TestRepo } from "../helpers/repo.ts";

const made: string[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** `npm ci` in small: node_modules deleted whole, then installed again. */
const REINSTALL = "rm -rf node_modules && mkdir -p node_modules/left-pad && echo installed > node_modules/left-pad/index.js";

/** A project whose ensure reinstalls node_modules, with a person's own package (an `npm link`, a patched dependency) in the main checkout's. */
async function project(): Promise<TestRepo> {
	const r = await makeRepo({
		config: `${BASIC_CONFIG}[worktree.setup]\nensure = [${JSON.stringify(REINSTALL)}]\n`,
		files: { ".gitignore": "node_modules/\n" },
	});
	made.push(r.root, `${r.root}.wt`);
	await mkdir(join(r.root, "node_modules", "my-local-hack"), { recursive: true });
	await writeFile(join(r.root, "node_modules", "my-local-hack", "index.js"), "person work\n");
	return r;
}

async function ensure(r: TestRepo, cwd: string, input: Record<string, unknown> = {}): Promise<{ result: AnyResult; data: WorktreeEnsureData }> {
	const result = await invokeVerb("worktree ensure", r.ctx({ cwd }), input);
	v.parse(worktreeEnsureVerb.envelope, result);
	return { result, data: result.data as WorktreeEnsureData };
}

describe("worktree ensure: [worktree.setup] is for task worktrees", () => {
	test("in the main checkout it runs nothing and says why: the person's node_modules stays as it is", async () => {
		const r = await project();
		const { result, data } = await ensure(r, r.root);
		expect(result.ok).toBe(true);
		expect(data).toMatchObject({ ran: 0, main_checkout: true });
		expect(result.message).toContain("the main checkout is yours: discern runs [worktree.setup] only in the task worktrees it starts");
		expect(result.hints?.some((hint) => hint.includes("`discern worktree ensure --main-checkout`"))).toBe(true);
		expect(result.steps ?? []).toEqual([]);
		expect(await readFile(join(r.root, "node_modules", "my-local-hack", "index.js"), "utf8")).toBe("person work\n");
		expect(await readdir(join(r.root, "node_modules"))).toEqual(["my-local-hack"]);
	});

	test("a dry run in the main checkout plans each command as skipped", async () => {
		const r = await project();
		const { result, data } = await ensure(r, r.root, { dry_run: true });
		expect([result.ok, result.dry_run, data.ran]).toEqual([true, true, 0]);
		expect(result.plan?.map((item) => [item.label, item.disposition])).toEqual([["ensure 1", "skip"]]);
	});

	test("the person asks for it with --main-checkout: it runs there", async () => {
		const r = await project();
		const { result, data } = await ensure(r, r.root, { main_checkout: true });
		expect(result.ok).toBe(true);
		expect(data).toMatchObject({ ran: 1, main_checkout: true });
		expect(await readdir(join(r.root, "node_modules"))).toEqual(["left-pad"]);
	});

	test("in a linked worktree it runs, as the session-start hook needs", async () => {
		const r = await project();
		const path = join(`${r.root}.wt`, "task");
		await r.git("worktree", "add", "-q", "-b", "agent/task", path);
		const { result, data } = await ensure(r, path);
		expect(result.ok).toBe(true);
		expect(data).toMatchObject({ ran: 1, main_checkout: false });
		expect(await readFile(join(path, "node_modules", "left-pad", "index.js"), "utf8")).toBe("installed\n");
		// The main checkout's folder is another one: untouched.
		expect(await readdir(join(r.root, "node_modules"))).toEqual(["my-local-hack"]);
	});
});
