import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import type { AcceptData } from "../../src/verbs/accept/schema.ts";
import type { StartData } from "../../src/verbs/start/schema.ts";
import type { WorktreeDropData, WorktreePruneData } from "../../src/verbs/worktree/schema.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, runGit, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * What a person has in a worktree (an env file `start` copied and the
 * person edited since, a nested repository holding commits only it has) is
 * judged the same by every verb that removes the folder: what accept keeps
 * the worktree for, `worktree prune` and `worktree drop` do not delete.
 */

const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

const CONFIG = `[jobs]
test = "true"
`;

const EDITED = "API_URL=http://localhost\nAPI_KEY=only-here\n";

/**
 * The repro of hostile review A's F5: `.env` in the main checkout; start;
 * edit `.env` in the worktree; commit, done, accept --confirmed (which
 * lands and keeps the worktree for the edited `.env`).
 */
async function acceptedWithEditedEnv(): Promise<{ root: string; wt: string; id: string }> {
	const repo = await makeRepo({ config: CONFIG, files: { "README.md": "# r\n", ".gitignore": ".env\n*.local\n" } });
	made.push(repo.root, `${repo.root}.worktrees`);
	await repo.write(".env", "API_URL=http://localhost\n");
	const started = await invokeVerb("start", testContext(repo.root), { title: "env work" });
	expect(started.ok).toBe(true);
	const { path: wt, id } = started.data as StartData;
	await writeFile(join(wt, ".env"), EDITED);
	await writeFile(join(wt, "feature.txt"), "feature\n");
	await runGit(wt, ["add", "-A"]);
	await runGit(wt, ["commit", "-q", "-m", "feature"]);
	const done = await invokeVerb("done", testContext(wt), {});
	expect(done.ok).toBe(true);
	const accepted = await invokeVerb("accept", testContext(repo.root), { target: id, confirmed: true });
	expect(accepted.ok).toBe(true);
	expect((accepted.data as AcceptData).worktree_removed).toBe(false);
	expect((accepted.data as AcceptData).worktree_files.edited_env).toEqual([".env"]);
	return { root: repo.root, wt, id };
}

function dropData(result: AnyResult): WorktreeDropData {
	return result.data as WorktreeDropData;
}

describe("an edited env file accept kept the worktree for", () => {
	test("worktree prune --yes keeps the worktree, with that reason", async () => {
		const { root, wt } = await acceptedWithEditedEnv();
		const preview = await invokeVerb("worktree prune", testContext(root), { dry_run: true });
		expectValidEnvelope("worktree prune", preview);
		expect((preview.data as WorktreePruneData).would_remove).toEqual([]);
		const result = await invokeVerb("worktree prune", testContext(root), { yes: true });
		expectValidEnvelope("worktree prune", result);
		expect(result.ok).toBe(true);
		const data = result.data as WorktreePruneData;
		expect(data.removed).toEqual([]);
		const skipped = data.skipped.find((entry) => entry.path === wt);
		expect(skipped?.reason).toContain(".env");
		expect(skipped?.reason).toContain("edited there since start copied it");
		expect(await readFile(join(wt, ".env"), "utf8")).toBe(EDITED);
	});

	test("worktree drop without --force refuses, naming it; nothing is changed", async () => {
		const { root, wt, id } = await acceptedWithEditedEnv();
		const result = await invokeVerb("worktree drop", testContext(root), { id });
		expectValidEnvelope("worktree drop", result);
		expect(result.ok ? "" : result.error).toBe("dirty_worktree");
		expect(result.message).toContain(".env");
		expect(result.message).toContain("Nothing was changed");
		expect(dropData(result)).toMatchObject({ removed: false, edited_env: [".env"] });
		expect(result.hints?.join("\n")).toContain(`cp -- ${join(wt, ".env")} ${join(root, ".env")}`);
		expect(await readFile(join(wt, ".env"), "utf8")).toBe(EDITED);
	});

	test("worktree drop --force refuses too (an env file's secrets are never saved into a git commit); once saved in the main checkout, drop removes it", async () => {
		const { root, wt, id } = await acceptedWithEditedEnv();
		const forced = await invokeVerb("worktree drop", testContext(root), { id, force: true });
		expectValidEnvelope("worktree drop", forced);
		expect(forced.ok ? "" : forced.error).toBe("dirty_worktree");
		expect(forced.message).toContain("--force does not delete it");
		expect(await readFile(join(wt, ".env"), "utf8")).toBe(EDITED);
		// The hint's copy saves the edit where it belongs; then nothing of the person's is lost.
		await writeFile(join(root, ".env"), EDITED);
		const dropped = await invokeVerb("worktree drop", testContext(root), { id });
		expectValidEnvelope("worktree drop", dropped);
		expect(dropped.ok).toBe(true);
		expect(existsSync(wt)).toBe(false);
	});
});
