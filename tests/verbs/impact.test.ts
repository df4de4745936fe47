import { afterEach, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import * as v from "valibot";
import { changedPaths } from "../../src/scopes/changed.ts";
import { impact } from "../../src/verbs/impact/impact.ts";
import { renderImpact } from "../../src/verbs/impact/render.ts";
import type { ImpactData } from "../../src/verbs/impact/schema.ts";
import { impactVerb } from "../../src/verbs/impact/verb.ts";
import { makeRepo, makeTempDir, type TestRepo, testContext } from "../helpers/repo.ts";

const CONFIG = `[scopes.web]
paths = ["apps/web/**"]
gate = "true"

[scopes.docs]
paths = ["docs/**", "*.md"]
neutral = true

[scopes.api]
paths = ["apps/api/**"]
`;

const FILES = {
	"apps/web/a.ts": "web\n",
	"apps/api/b.ts": "api\n",
	"docs/guide.md": "# guide\n",
	"README.md": "# readme\n",
	"src/lib.ts": "lib\n",
};

const ImpactEnvelope = impactVerb.envelope;

const made: TestRepo[] = [];
const dirs: string[] = [];
async function repo(options: Parameters<typeof makeRepo>[0] = { config: CONFIG, files: FILES }): Promise<TestRepo> {
	const r = await makeRepo(options);
	made.push(r);
	return r;
}
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
	await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Run impact and hold the result to its published envelope. */
async function run(r: TestRepo, input: { has?: string } = {}, env: Record<string, string> = {}) {
	const result = await impact(r.ctx({ env: { PATH: process.env.PATH, ...env } }), input);
	v.parse(ImpactEnvelope, result);
	return result;
}

async function dataOf(r: TestRepo, input: { has?: string } = {}, env: Record<string, string> = {}): Promise<ImpactData> {
	const result = await run(r, input, env);
	if (!result.ok || !result.data) throw new Error(`impact failed: ${result.message}`);
	return result.data;
}

describe("impact", () => {
	test("committed, staged, unstaged and untracked changes all count; code marker for non-neutral paths", async () => {
		const r = await repo();
		await r.git("switch", "-q", "-c", "feature");
		await r.write("apps/api/b.ts", "api changed\n");
		await r.commitAll("committed on the branch");
		await r.write("apps/web/a.ts", "web staged\n");
		await r.git("add", "apps/web/a.ts");
		await r.write("README.md", "# unstaged\n");
		await r.write("notes/new file ü.txt", "untracked\n");
		const data = await dataOf(r);
		expect(data.paths).toEqual(["README.md", "apps/api/b.ts", "apps/web/a.ts", "notes/new file ü.txt"]);
		expect(data.changed).toBe(4);
		expect(data.truncated).toBe(false);
		expect(data.complete).toBe(true);
		expect(data).not.toHaveProperty("reason");
		expect(data).not.toHaveProperty("membership");
		expect(data.scopes).toEqual(["web", "docs", "api", "code"]);
		expect(data.per_scope).toEqual([
			{ scope: "web", paths: 1, neutral: false, gate: true },
			{ scope: "docs", paths: 1, neutral: true, gate: false },
			{ scope: "api", paths: 1, neutral: false, gate: false },
		]);
	});

	test("a docs-only change touches docs and no code", async () => {
		const r = await repo();
		await r.git("switch", "-q", "-c", "docs-only");
		await r.write("docs/guide.md", "# better guide\n");
		await r.commitAll("docs");
		await r.write("docs/new.md", "new\n");
		await r.write("apps/web/NOTES.md", "a markdown file inside web counts for web and docs\n");
		const data = await dataOf(r);
		expect(data.scopes).toEqual(["web", "docs"]);
		await r.write("CHANGELOG.md", "x\n");
		await rm(`${r.root}/apps/web/NOTES.md`);
		expect((await dataOf(r)).scopes).toEqual(["docs"]);
	});

	test("a rename counts both the old and the new path", async () => {
		const r = await repo();
		await r.git("switch", "-q", "-c", "move");
		await r.git("mv", "apps/web/a.ts", "apps/api/a.ts");
		await r.commitAll("move web to api");
		const data = await dataOf(r);
		expect(data.paths).toEqual(["apps/api/a.ts", "apps/web/a.ts"]);
		expect(data.scopes).toEqual(["web", "api", "code"]);
	});

	test("a staged rename also counts both paths", async () => {
		const r = await repo();
		await r.git("mv", "docs/guide.md", "src/guide.md");
		const data = await dataOf(r);
		expect(data.paths).toEqual(["docs/guide.md", "src/guide.md"]);
		// src/guide.md is still a `*.md`: neutral, so no code.
		expect(data.scopes).toEqual(["docs"]);
	});

	test("a clean checkout on the trunk touches nothing", async () => {
		const r = await repo();
		const result = await run(r);
		expect(result.ok).toBe(true);
		expect(result.data).toEqual({
			scopes: [],
			changed: 0,
			paths: [],
			truncated: false,
			complete: true,
			per_scope: [
				{ scope: "web", paths: 0, neutral: false, gate: true },
				{ scope: "docs", paths: 0, neutral: true, gate: false },
				{ scope: "api", paths: 0, neutral: false, gate: false },
			],
		});
		expect(result.message).toContain("No changes");
	});

	test("a missing trunk fails open: every scope touched, code set, the reason names the trunk", async () => {
		const r = await repo();
		await r.write("docs/only.md", "x\n");
		const result = await run(r, {}, { DISCERN_TRUNK: "does-not-exist" });
		expect(result.ok).toBe(true);
		const data = result.data;
		expect(data?.complete).toBe(false);
		expect(data?.reason).toContain("`does-not-exist` does not exist locally");
		expect(data?.scopes).toEqual(["web", "docs", "api", "code"]);
		// What git could still list is reported honestly.
		expect(data?.paths).toEqual(["docs/only.md"]);
		expect(data?.per_scope.map((scope) => scope.paths)).toEqual([0, 1, 0]);
		expect(result.hints?.length).toBeGreaterThan(0);
	});

	test("an unborn branch fails open", async () => {
		const r = await repo({ config: CONFIG, files: { "docs/a.md": "x\n" }, commit: false });
		const data = await dataOf(r);
		expect(data.complete).toBe(false);
		expect(data.scopes).toEqual(["web", "docs", "api", "code"]);
		expect(data.paths).toEqual(["discern.toml", "docs/a.md"]);
	});

	test("unrelated histories (no merge base) fail open", async () => {
		const r = await repo();
		await r.git("switch", "-q", "--orphan", "island");
		await r.write("discern.toml", CONFIG);
		await r.commitAll("island");
		const data = await dataOf(r);
		expect(data.complete).toBe(false);
		expect(data.reason).toContain("git could not list the committed changes");
		expect(data.scopes).toEqual(["web", "docs", "api", "code"]);
	});

	test("has: membership of a scope or of the code marker", async () => {
		const r = await repo();
		await r.write("docs/x.md", "x\n");
		const yes = await run(r, { has: "docs" });
		expect(yes.ok).toBe(true);
		expect(yes.data?.membership).toBe(true);
		expect(yes.message).toBe("Scope `docs` is touched.");
		expect((await dataOf(r, { has: "web" })).membership).toBe(false);
		expect((await dataOf(r, { has: "code" })).membership).toBe(false);
		await r.write("src/new.ts", "x\n");
		expect((await dataOf(r, { has: "code" })).membership).toBe(true);
	});

	test("has fails open too: an incomplete list makes every scope a member", async () => {
		const r = await repo();
		expect((await dataOf(r, { has: "api" }, { DISCERN_TRUNK: "gone" })).membership).toBe(true);
	});

	test("an unknown scope in has is invalid_arguments with a suggestion", async () => {
		const r = await repo();
		const result = await run(r, { has: "wbe" });
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error).toBe("invalid_arguments");
		expect(result.message).toContain("`wbe`");
		expect(result.message).toContain("did you mean `web`?");
		expect(result.hints.join(" ")).toContain("`web`, `docs`, `api`");
	});

	test("more than 200 changed paths are counted, and 200 listed", async () => {
		const r = await repo();
		for (let i = 0; i < 250; i++) await r.write(`apps/web/gen/f${String(i).padStart(3, "0")}.ts`, "x");
		const data = await dataOf(r);
		expect(data.changed).toBe(250);
		expect(data.paths.length).toBe(200);
		expect(data.truncated).toBe(true);
		expect(data.per_scope[0]?.paths).toBe(250);
	});

	test("outside a repository: no_repository", async () => {
		const dir = await makeTempDir();
		dirs.push(dir);
		const result = await impact(testContext(dir), {});
		v.parse(ImpactEnvelope, result);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("no_repository");
	});

	test("without discern.toml: no_project", async () => {
		const r = await repo({ files: FILES });
		const result = await run(r);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("no_project");
	});

	test("a project without scopes: any change is code", async () => {
		const r = await repo({ config: "", files: FILES });
		await r.write("src/lib.ts", "changed\n");
		const data = await dataOf(r);
		expect(data.scopes).toEqual(["code"]);
		expect(data.per_scope).toEqual([]);
	});
});

describe("changedPaths", () => {
	test("without a trunk: the working tree is still listed, marked incomplete", async () => {
		const r = await repo();
		await r.write("a.txt", "untracked\n");
		await r.write("src/lib.ts", "unstaged\n");
		const changes = await changedPaths(r.root, null);
		expect(changes.paths).toEqual(["a.txt", "src/lib.ts"]);
		expect(changes.complete).toBe(false);
		expect(changes.reason).toContain("no trunk");
	});

	test("a revision that looks like an option is refused, not passed to git", async () => {
		const r = await repo();
		const changes = await changedPaths(r.root, "--output=/tmp/x");
		expect(changes.complete).toBe(false);
		expect(changes.reason).toContain("not a valid revision");
	});

	test("a file changed in several ways is listed once", async () => {
		const r = await repo();
		await r.git("switch", "-q", "-c", "feature");
		await r.write("src/lib.ts", "committed\n");
		await r.commitAll();
		await r.write("src/lib.ts", "staged\n");
		await r.git("add", "src/lib.ts");
		await r.write("src/lib.ts", "unstaged\n");
		expect(await changedPaths(r.root, "refs/heads/main")).toEqual({ paths: ["src/lib.ts"], submodules: [], complete: true });
	});
});

describe("renderImpact", () => {
	test("lists every scope with its count and the code marker; a has question renders nothing", async () => {
		const r = await repo();
		await r.write("apps/web/a.ts", "x\n");
		await r.write("docs/b.md", "x\n");
		const result = await run(r);
		const text = renderImpact(result, { color: false, verbose: false });
		expect(text).toContain("web");
		expect(text).toMatch(/docs\s+1 path\b/);
		expect(text).toMatch(/api\s+0 paths/);
		expect(text).toContain("code");
		expect(text).not.toContain("apps/web/a.ts");
		expect(renderImpact(result, { color: false, verbose: true })).toContain("apps/web/a.ts");
		expect(renderImpact(await run(r, { has: "web" }), { color: false, verbose: false })).toBe("");
	});
});
