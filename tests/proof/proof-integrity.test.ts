import { afterEach, describe, expect, test } from "bun:test";
import { chmod, lstat, mkdir, rename, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { provenAncestor } from "../../src/git/ancestry.ts";
import { done } from "../../src/proof/done.ts";
import { status } from "../../src/verbs/status/status.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { survivors } from "../helpers/processes.ts";
import { makeRepo, makeTempDir, runGit, type TestRepo, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { makeWorktreeRepo } from "../helpers/worktree.ts";

/**
 * Attacks on the Proof: each builds a repository where a green Proof would
 * describe something other than the exact committed tree judged against the
 * real trunk, and asserts the gate refuses or reruns.
 */

const made: TestRepo[] = [];
const dirs: string[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
	for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function repo(config: string, files: Record<string, string> = { "README.md": "# fixture\n" }): Promise<TestRepo> {
	const r = await makeRepo({ config, files });
	made.push(r);
	return r;
}

type Loose = { ok: boolean; error?: string; message: string; hints?: string[]; steps?: { label: string; outcome: string }[] };
type DoneResultData = {
	gate_ran: boolean;
	failed_stage: string | null;
	scopes_changed: string[];
	all_scopes_because?: string;
	proof: { trunk: { name: string | null; sha: string | null }; head: string; line: string } | null;
	drift?: { stage: string; files: string[] };
};

async function runDone(r: TestRepo, input: Parameters<typeof done>[1] = {}, env: Record<string, string> = {}): Promise<Loose & { data?: DoneResultData }> {
	const result: AnyResult = await done(r.ctx({ env: { PATH: process.env.PATH, ...env } }), input);
	expectValidEnvelope("done", result);
	return result as Loose & { data?: DoneResultData };
}

const SCOPED = `[jobs]
test = "true"
[scopes.web]
paths = ["web/**"]
gate = "echo web-gate-ran"
`;

describe("the Proof names the trunk it was judged against", () => {
	test("a Proof earned with DISCERN_TRUNK naming the branch itself is not reused by a plain done", async () => {
		const r = await repo(SCOPED);
		await r.git("switch", "-q", "-c", "feature");
		await r.write("notes.txt", "x\n");
		await r.commitAll("feature work");
		const overridden = await runDone(r, {}, { DISCERN_TRUNK: "feature" });
		expect(overridden.ok).toBe(true);
		expect(overridden.data?.proof?.trunk.name).toBe("feature");
		// No branch diff to classify: every scope gate ran, and the result says so.
		expect(overridden.steps?.map((step) => step.label)).toContain("scope:web");
		expect(overridden.data?.all_scopes_because).toContain("is the trunk");
		expect(overridden.hints?.join(" ")).toContain("Every scope gate runs");

		const plain = await runDone(r);
		expect(plain.ok).toBe(true);
		expect(plain.data?.gate_ran).toBe(true);
		expect(plain.data?.proof?.trunk.name).toBe("main");
		expect(plain.steps?.map((step) => step.label)).not.toContain("scope:web");
	});

	test("a trunk named by the repository's own init.defaultBranch while `main` exists is said on the result (a decoy skips main's scope gates)", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n[scopes.web]\npaths = ["web/**"]\ngate = "exit 1"\n`);
		await r.git("switch", "-q", "-c", "task");
		await r.write("web/i.html", "<p>\n");
		await r.commitAll("web change");
		await r.git("branch", "decoy", "HEAD");
		await r.git("config", "init.defaultBranch", "decoy");
		const result = await runDone(r);
		expect(result.data?.proof?.trunk.name).toBe("decoy");
		expect(result.hints?.join(" ")).toContain("The trunk is `decoy`, as init.defaultBranch in this repository's own files says, though `main` exists");
		const settled = await runDone(r, { rerun: true }, { DISCERN_TRUNK: "main" });
		expect(settled.ok).toBe(false);
		expect(settled.data?.failed_stage).toBe("scopes");
	});

	test("a Proof is not reused once the trunk has moved", async () => {
		const r = await repo(SCOPED);
		await r.git("switch", "-q", "-c", "feature");
		await r.write("notes.txt", "x\n");
		await r.commitAll("feature work");
		const first = await runDone(r);
		expect(first.ok).toBe(true);
		const mainSha = (await r.git("rev-parse", "main")).trim();
		expect(first.data?.proof?.trunk).toEqual({ name: "main", sha: mainSha });
		expect((await runDone(r)).data?.gate_ran).toBe(false);

		await r.git("switch", "-q", "main");
		await r.write("web/page.html", "<p>\n");
		await r.commitAll("trunk moves");
		await r.git("switch", "-q", "feature");
		const seen = (await status(r.ctx(), {})) as { data?: { proof: { state: string } } };
		expect(seen.data?.proof.state).toBe("stale");
		const again = await runDone(r);
		expect(again.ok).toBe(true);
		expect(again.data?.gate_ran).toBe(true);
	});

	test("done on the trunk itself runs every scope gate and says so", async () => {
		const r = await repo(SCOPED);
		const result = await runDone(r);
		expect(result.ok).toBe(true);
		expect(result.data?.scopes_changed).toEqual(["web"]);
		expect(result.steps?.map((step) => step.label)).toContain("scope:web");
		expect(result.data?.all_scopes_because).toContain("trunk `main`");
	});

	test("a clone made with -b feat (origin/HEAD names the branch) runs every scope gate", async () => {
		const origin = await repo(SCOPED);
		await origin.git("switch", "-q", "-c", "feat");
		await origin.write("notes.txt", "x\n");
		await origin.commitAll("feat work");
		const parent = await makeTempDir();
		dirs.push(parent);
		const clonePath = join(parent, "clone");
		await runGit(parent, ["clone", "-q", "-b", "feat", origin.root, clonePath]);
		await runGit(clonePath, ["remote", "set-head", "origin", "feat"]);
		const clone: TestRepo = { ...origin, root: clonePath, ctx: (overrides = {}) => origin.ctx({ cwd: clonePath, ...overrides }) };
		const result = await runDone(clone);
		expect(result.ok).toBe(true);
		expect(result.steps?.map((step) => step.label)).toContain("scope:web");
		expect(result.data?.all_scopes_because).toBeDefined();
		expect(await survivors(clonePath)).toEqual([]);
	});
});

describe("local git configuration cannot make a changed tree look clean", () => {
	/** Rewrite a tracked file with same-size content and put its mtime back: only ctime and content tell. */
	async function sneakyEdit(r: TestRepo, path: string, content: string): Promise<void> {
		const before = await stat(join(r.root, path));
		await writeFile(join(r.root, path), content);
		await utimes(join(r.root, path), before.atime, before.mtime);
	}

	test("core.checkStat=minimal with core.trustctime=false: a same-size edit is still dirty", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { "src.txt": "aaaa\n" });
		await r.git("config", "core.checkStat", "minimal");
		await r.git("config", "core.trustctime", "false");
		// An old mtime, recorded in a newer index: git has no reason to look again.
		const old = new Date("2020-01-01T00:00:00");
		await utimes(join(r.root, "src.txt"), old, old);
		await r.git("update-index", "--refresh");
		await sneakyEdit(r, "src.txt", "bbbb\n");
		expect((await r.git("status", "--porcelain")).trim()).toBe(""); // git itself is fooled
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("src.txt");
	});

	test("a job's same-size edit with the mtime put back is tree drift, whatever the config", async () => {
		const r = await repo('[jobs]\ntest = "printf bbbb > src.txt && touch -d \\"2020-01-01 00:00:00\\" src.txt"\n', { "src.txt": "aaaa" });
		await r.git("config", "core.checkStat", "minimal");
		await r.git("config", "core.trustctime", "false");
		await utimes(join(r.root, "src.txt"), new Date("2020-01-01T00:00:00"), new Date("2020-01-01T00:00:00"));
		await r.git("update-index", "--refresh");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toEqual(["src.txt"]);
	});

	test("core.ignoreStat cannot hide an edit", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { "src.txt": "one\n" });
		await r.git("config", "core.ignoreStat", "true");
		await r.write("src.txt", "two, longer\n");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
	});

	test("an fsmonitor hook that reports nothing cannot hide an edit", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { "src.txt": "one\n" });
		const hook = join(r.root, ".git", "quiet-fsmonitor");
		// Protocol v2: echo a token, then list no changed paths.
		await writeFile(hook, '#!/bin/sh\nprintf "token\\0"\n', { mode: 0o755 });
		await r.git("config", "core.fsmonitor", hook);
		await r.git("config", "core.fsmonitorHookVersion", "2");
		await r.git("status"); // let git record the token
		await r.write("src.txt", "two, longer\n");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
	});

	test("a dirty submodule marked ignore=all in the local config is still dirty", async () => {
		const sub = await repo("", { "lib.txt": "lib\n" });
		const r = await repo('[jobs]\ntest = "true"\n');
		await r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root, "vendor/lib");
		await r.commitAll("add submodule");
		await r.git("config", "submodule.vendor/lib.ignore", "all");
		await r.git("config", "diff.ignoreSubmodules", "all");
		await writeFile(join(r.root, "vendor/lib/lib.txt"), "changed inside the submodule\n");
		expect((await r.git("status", "--porcelain")).trim()).toBe(""); // git itself is fooled
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("vendor/lib");
	});

	test("a job that edits a tracked file and then hides it with assume-unchanged fails with tree_drift", async () => {
		const r = await repo('[jobs]\ntest = "echo tampered >> README.md && git update-index --assume-unchanged README.md"\n');
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toContain("README.md");
	});

	test("a job that hides an edit with skip-worktree fails with tree_drift", async () => {
		const r = await repo('[jobs]\nbuild = "echo tampered >> README.md && git update-index --skip-worktree README.md"\ntest = "true"\n');
		const result = await runDone(r);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.stage).toBe("build");
	});
});

describe("discern.toml must be the commit's own", () => {
	test("an uncommitted discern.toml excluded locally cannot earn a Proof", async () => {
		const r = await repo("");
		await rm(join(r.root, "discern.toml"));
		await r.git("rm", "-q", "--cached", "discern.toml");
		await r.commitAll("no config");
		await writeFile(join(r.root, ".git/info/exclude"), "discern.toml\n");
		await r.write("discern.toml", '[jobs]\ntest = "true"\n');
		expect((await r.git("status", "--porcelain")).trim()).toBe("");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		// Excluded only locally, it is an untracked file to the gate.
		expect(result.message).toContain("discern.toml");
	});

	test("a discern.toml committed as a symbolic link cannot earn a Proof", async () => {
		const r = await repo("", { "real.toml": '[jobs]\ntest = "true"\n' });
		await rm(join(r.root, "discern.toml"));
		await symlink("real.toml", join(r.root, "discern.toml"));
		await r.commitAll("config is a link");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("symbolic link");
	});

	test("a discern.toml whose edit is hidden by assume-unchanged cannot earn a Proof", async () => {
		const r = await repo('[jobs]\ntest = "exit 1"\n');
		await r.git("update-index", "--assume-unchanged", "discern.toml");
		await r.write("discern.toml", '[jobs]\ntest = "true"\n');
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
	});
});

describe("HEAD and the branch at the end", () => {
	for (const [what, command] of [
		["switches branch", "git switch -q -c elsewhere"],
		["detaches HEAD", "git switch -q --detach"],
		["commits", "git -c user.name=x -c user.email=x@x commit -q --allow-empty -m sneaky"],
	] as const) {
		test(`a job that ${what} yields tree_drift, not a Proof`, async () => {
			const r = await repo(`[jobs]\ntest = "${command}"\n`);
			const result = await runDone(r);
			expect(result.ok).toBe(false);
			expect(result.data?.failed_stage).toBe("tree_drift");
			expect(result.data?.proof).toBeNull();
			expect(result.data?.drift?.files.join(" ")).toContain("HEAD moved");
		});
	}
});

describe("nothing declared, nothing proven", () => {
	for (const [what, config] of [
		["an empty config", ""],
		["only empty commands", '[jobs]\ntest = ":"\nlint = ""\n'],
	] as const) {
		test(`${what} refuses with nothing_to_prove`, async () => {
			const r = await repo(config);
			const result = await runDone(r);
			expect(result.ok).toBe(false);
			expect(result.error).toBe("nothing_to_prove");
			expect(result.hints?.join(" ")).toContain("discern setup");
		});
	}
});

describe("a change from outside the gate", () => {
	test("is reported as drift but is not the commit's red verdict", async () => {
		const r = await repo('[jobs]\ntest = "sleep 1"\n');
		const running = runDone(r);
		await Bun.sleep(400);
		await r.write("README.md", "an editor saved this\n");
		const first = await running;
		expect(first.data?.failed_stage).toBe("tree_drift");
		await r.git("checkout", "--", "README.md");
		const second = await runDone(r);
		expect(second.error).not.toBe("unchanged_tree_rerun");
		expect(second.ok).toBe(true);
	});

	test("config set waits its turn: it refuses with locked while done runs", async () => {
		const r = await repo('[jobs]\ntest = "sleep 1"\n');
		// Both through the pipeline, which takes the lock each declares.
		const running = invokeVerb("done", r.ctx({ env: { PATH: process.env.PATH } }));
		await Bun.sleep(400);
		const set: Loose = await invokeVerb("config set", r.ctx(), { key: "gate.timeout", value: "30" });
		expect(set.ok).toBe(false);
		expect(set.error).toBe("locked");
		expect((await running).ok).toBe(true);
	});
});

describe("state paths blocked", () => {
	test("a file where .git/discern belongs: write_denied naming the path, not a crash", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await writeFile(join(r.root, ".git/discern"), "in the way\n");
		const run = await runDiscern(["done", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(1);
		const result = onlyJson(run.stdout);
		expect(result.error).toBe("write_denied");
		expect(String(result.message)).toContain(join(r.root, ".git/discern"));
	});

	test("a folder where runs/ logs go: write_denied", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await mkdir(join(r.root, ".git/discern"), { recursive: true });
		await writeFile(join(r.root, ".git/discern/runs"), "in the way\n");
		const result = await runDone(r);
		expect(result.error).toBe("write_denied");
		expect(result.message).toContain("runs");
	});

	test("a folder where proof.json goes: the green run is reported, with write_denied", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await mkdir(join(r.root, ".git/discern/proof.json"), { recursive: true });
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("write_denied");
		expect(result.message).toContain("The gate passed");
		// The folder in the way is named, not discern's own temp file.
		expect(result.message).toContain(join(".git", "discern", "proof.json"));
		expect(result.message).not.toContain("discern-tmp");
		expect(result.steps?.map((step) => step.outcome)).toEqual(["ok"]);
		expect(result.data?.failed_stage).toBeNull();
	});
});

describe("submodules keep their own index", () => {
	async function withSubmodule(config: string): Promise<TestRepo> {
		const sub = await repo("", { "lib.txt": "lib\n" });
		const r = await repo(config);
		await r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root, "vendor/lib");
		await r.commitAll("add submodule");
		return r;
	}

	test("an edit hidden with assume-unchanged inside a submodule cannot earn a Proof", async () => {
		const r = await withSubmodule('[jobs]\ntest = "true"\n');
		await runGit(join(r.root, "vendor/lib"), ["update-index", "--assume-unchanged", "lib.txt"]);
		await writeFile(join(r.root, "vendor/lib/lib.txt"), "changed\n");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("vendor/lib/lib.txt");
	});

	test("a job that edits a submodule file and hides it fails with tree_drift", async () => {
		const r = await withSubmodule('[jobs]\ntest = "cd vendor/lib && echo changed > lib.txt && git update-index --assume-unchanged lib.txt"\n');
		const result = await runDone(r);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toContain("vendor/lib/lib.txt");
	});
});

describe("the commit's real objects", () => {
	test("a replace ref that shows another tree under HEAD's name cannot earn a Proof for HEAD", async () => {
		const r = await repo('[jobs]\ntest = "test -f ok"\n');
		const real = (await r.git("rev-parse", "HEAD")).trim();
		await r.write("ok", "passes\n");
		await r.commitAll("the tree that passes");
		const passing = (await r.git("rev-parse", "HEAD")).trim();
		await r.git("reset", "-q", "--soft", real);
		await r.git("replace", real, passing);
		await r.git("reset", "-q");
		expect((await r.git("status", "--porcelain")).trim()).toBe(""); // git itself is fooled
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("ok");
		// The repository's config turning replace refs back on (it beats the environment) changes nothing.
		await r.git("config", "core.useReplaceRefs", "true");
		const again = await runDone(r);
		expect(again.ok).toBe(false);
		expect(again.error).toBe("dirty_worktree");
	});
});

describe("an object store that lies", () => {
	/** Give a one-object pack index's only object another id (its data untouched), as a job could write it. */
	async function relabel(idxPath: string, id: string): Promise<void> {
		const bytes = new Uint8Array(await Bun.file(idxPath).arrayBuffer());
		const view = new DataView(bytes.buffer);
		expect(view.getUint32(8 + 255 * 4)).toBe(1);
		const real = Uint8Array.from(Buffer.from(id, "hex"));
		for (let i = 0; i < 256; i++) view.setUint32(8 + 4 * i, i >= (real[0] ?? 0) ? 1 : 0);
		bytes.set(real, 8 + 1024);
		bytes.set(new Bun.CryptoHasher("sha1").update(bytes.subarray(0, bytes.length - 20)).digest(), bytes.length - 20);
		await Bun.write(idxPath, bytes);
	}

	async function gitWithInput(cwd: string, args: string[], input: string): Promise<string> {
		const child = Bun.spawn(["git", ...args], { cwd, stdin: new Blob([input]), stdout: "pipe", stderr: "pipe" });
		const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		if (code !== 0) throw new Error(`git ${args.join(" ")} failed`);
		return out.trim();
	}

	test("a pack index filing a forged trunk root (its discern.toml the branch's, loosened) is no trunk to judge against", async () => {
		const standard = (limit: number) =>
			`[jobs]\ntest = "true"\n[standards.cov]\nrun = "echo DISCERN_METRIC cov 60"\ndirection = "up"\nlimit = ${limit}\nmetric = "cov"\n`;
		const r = await repo(standard(90));
		await r.git("switch", "-q", "-c", "feature");
		await r.write("discern.toml", standard(50));
		await r.commitAll("loosen the standard");
		// The trunk's root as the branch's copy would have it: the same entries, discern.toml the loosened one.
		const loosened = (await r.git("rev-parse", "feature:discern.toml")).trim();
		const listing = (await r.git("ls-tree", "main")).replace(/[0-9a-f]{40}(\tdiscern\.toml)/, `${loosened}$1`);
		const forged = await gitWithInput(r.root, ["mktree"], listing);
		const pack = await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${forged}\n`);
		// (The forged root is the branch's own root, object for object: it stays where it is, under its own id too.)
		await relabel(join(r.root, ".git", "objects", "pack", `pack-${pack}.idx`), (await r.git("rev-parse", "main^{tree}")).trim());
		// git itself now shows the trunk holding the loosened limit.
		expect(await r.git("show", "main:discern.toml")).toContain("limit = 50");
		const result = await runDone(r);
		await expectRefusedWithoutProof(r, result, "no_trunk", "object store");
	});

	/** In a pack index of several objects, file the object `from` under the id `to` (entries re-sorted, checksum redone). */
	async function relabelAmong(idxPath: string, from: string, to: string): Promise<void> {
		const bytes = new Uint8Array(await Bun.file(idxPath).arrayBuffer());
		const view = new DataView(bytes.buffer);
		const count = view.getUint32(8 + 255 * 4);
		const ids = 8 + 1024;
		const crcs = ids + 20 * count;
		const offsets = crcs + 4 * count;
		const entries = Array.from({ length: count }, (_, i) => {
			const id = Buffer.from(bytes.subarray(ids + 20 * i, ids + 20 * i + 20)).toString("hex");
			return { id: id === from ? to : id, crc: bytes.slice(crcs + 4 * i, crcs + 4 * i + 4), offset: bytes.slice(offsets + 4 * i, offsets + 4 * i + 4) };
		}).sort((a, b) => (a.id < b.id ? -1 : 1));
		for (let i = 0; i < 256; i++) view.setUint32(8 + 4 * i, entries.filter((entry) => Number.parseInt(entry.id.slice(0, 2), 16) <= i).length);
		for (const [i, entry] of entries.entries()) {
			bytes.set(Buffer.from(entry.id, "hex"), ids + 20 * i);
			bytes.set(entry.crc, crcs + 4 * i);
			bytes.set(entry.offset, offsets + 4 * i);
		}
		bytes.set(new Bun.CryptoHasher("sha1").update(bytes.subarray(0, bytes.length - 20)).digest(), bytes.length - 20);
		await Bun.write(idxPath, bytes);
	}

	test("two packs answering one tree id differently (git searches the last one used first): the private index holds only the walked tree", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`, { "a/x/f": "1\n", "a/y": "2\n", "b/f": "3\n" });
		await r.git("config", "gc.auto", "0");
		await r.git("switch", "-q", "-c", "task");
		await r.write("discern.toml", `[jobs]\ntest = "test -e b/evil"\n`);
		await r.write("b/f", "3\n4\n");
		await r.commitAll("the job needs b/evil, which is not committed");
		const [x, b] = [(await r.git("rev-parse", "HEAD:a/x")).trim(), (await r.git("rev-parse", "HEAD:b")).trim()];
		const evil = await gitWithInput(r.root, ["hash-object", "-w", "--stdin"], "EVIL\n");
		const forged = await gitWithInput(r.root, ["mktree"], `${(await r.git("ls-tree", "HEAD:b")).trim()}\n100644 blob ${evil}\tevil\n`);
		// One pack of every real object but a/x; another of a/x and the forged b, filed under b's id. A reader that
		// finds a/x in the second pack (depth first, as read-tree and ls-tree go) takes b from it too.
		const all = (await r.git("rev-list", "--objects", "--all"))
			.split("\n")
			.map((line) => line.split(" ")[0] ?? "")
			.filter((id) => id !== "" && id !== x);
		await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${all.join("\n")}\n`);
		const second = await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${x}\n${forged}\n`);
		await r.git("prune-packed");
		await rm(join(r.root, ".git", "objects", forged.slice(0, 2), forged.slice(2)), { force: true });
		await rm(join(r.root, ".git", "objects", evil.slice(0, 2), evil.slice(2)), { force: true });
		await relabelAmong(join(r.root, ".git", "objects", "pack", `pack-${second}.idx`), forged, b);
		expect(await r.git("ls-tree", "-r", "--name-only", "HEAD")).toContain("b/evil");
		await r.write("b/evil", "EVIL\n");
		const result = await runDone(r);
		await expectRefusedWithoutProof(r, result, "dirty_worktree", "b/evil");
	});

	test("two packs answering one blob id differently: a converted file is compared with what a private store of hashed blobs writes", async () => {
		const r = await repo(`[jobs]\ntest = "grep -q committed data.txt"\n`, { ".gitattributes": "*.txt text eol=crlf\n", "data.txt": "committed\n" });
		await r.git("config", "gc.auto", "0");
		await r.git("switch", "-q", "-c", "task");
		await r.write("data.txt", "committed\nmore\n");
		await r.commitAll("task edits data.txt");
		const [data, attributes] = [(await r.git("rev-parse", "HEAD:data.txt")).trim(), (await r.git("rev-parse", "HEAD:.gitattributes")).trim()];
		const evil = await gitWithInput(r.root, ["hash-object", "-w", "--stdin"], "EVIL\n");
		// Every real object in one pack; a second holds the real .gitattributes (which checkout-index reads first) and EVIL filed under data.txt's id.
		const all = (await r.git("rev-list", "--objects", "--all"))
			.split("\n")
			.map((line) => line.split(" ")[0] ?? "")
			.filter((id) => id !== "");
		await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${all.join("\n")}\n`);
		await Bun.sleep(1100);
		const second = await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${attributes}\n${evil}\n`);
		await r.git("prune-packed");
		await rm(join(r.root, ".git", "objects", evil.slice(0, 2), evil.slice(2)), { force: true });
		await relabelAmong(join(r.root, ".git", "objects", "pack", `pack-${second}.idx`), evil, data);
		await r.write("data.txt", "EVIL\r\n");
		const result = await runDone(r);
		await expectRefusedWithoutProof(r, result, "dirty_worktree", "data.txt");
	});

	test("a pack index filing a forged tree under a real tree's id cannot earn a Proof for the commit", async () => {
		const r = await repo(`[jobs]\ntest = "sh ./tests/t.sh"\n`, { "tests/t.sh": "exit 0\n" });
		const passing = (await r.git("rev-parse", "HEAD:tests/t.sh")).trim();
		await r.git("switch", "-q", "-c", "feature");
		await r.write("tests/t.sh", "exit 1\n");
		await r.commitAll("the committed test fails");
		const real = (await r.git("rev-parse", "HEAD:tests")).trim();
		// The forged tests/ tree holds the passing script; a pack of it alone, its index relabelled with the real tree's id.
		const listing = (await r.git("ls-tree", "HEAD:tests")).replace(/[0-9a-f]{40}(\tt\.sh)/, `${passing}$1`);
		const forged = await gitWithInput(r.root, ["mktree"], listing);
		const pack = await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${forged}\n`);
		await relabel(join(r.root, ".git", "objects", "pack", `pack-${pack}.idx`), real);
		await rm(join(r.root, ".git", "objects", forged.slice(0, 2), forged.slice(2)));
		// The checkout as git now shows the commit: git itself is fooled.
		await r.write("tests/t.sh", "exit 0\n");
		await r.git("read-tree", "HEAD");
		expect((await r.git("status", "--porcelain")).trim()).toBe("");
		const result = await runDone(r);
		await expectRefusedWithoutProof(r, result, "dirty_worktree", "object store");
	});
	test("a forged commit that names the trunk as a parent proves no ancestry: git says yes, the hashed chain does not hold", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		const base = (await r.git("rev-parse", "HEAD")).trim();
		await r.write("trunk.txt", "trunk work\n");
		await r.commitAll("trunk-only");
		const trunkTip = (await r.git("rev-parse", "HEAD")).trim();
		await r.git("switch", "-q", "-c", "feature", base);
		await r.write("a.txt", "a\n");
		await r.commitAll("a1");
		const a1 = (await r.git("rev-parse", "HEAD")).trim();
		await r.write("a.txt", "a2\n");
		await r.commitAll("a2");
		expect(await provenAncestor(r.root, trunkTip, "HEAD")).toBe(false);
		// A1 again, with the trunk tip as a second parent, filed under A1's id by a relabelled pack index.
		const raw = await r.git("cat-file", "commit", a1);
		const forged = await gitWithInput(
			r.root,
			["hash-object", "-t", "commit", "-w", "--stdin"],
			raw.replace(`parent ${base}\n`, `parent ${base}\nparent ${trunkTip}\n`),
		);
		const pack = await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${forged}\n`);
		await relabel(join(r.root, ".git", "objects", "pack", `pack-${pack}.idx`), a1);
		await rm(join(r.root, ".git", "objects", forged.slice(0, 2), forged.slice(2)));
		expect(
			await r.git("merge-base", "--is-ancestor", trunkTip, "HEAD").then(
				() => 0,
				() => 1,
			),
		).toBe(0); // git itself is fooled
		expect(await provenAncestor(r.root, trunkTip, "HEAD")).toBeNull();
	});
	test("a branch's tree filed under the trunk's id hides no scope: the scope diff walks hashed trees", async () => {
		const config = `[jobs]\ntest = "true"\n\n[scopes.src]\npaths = ["src/**"]\ngate = "exit 1"\n\n[scopes.docs]\npaths = ["docs/**"]\n`;
		const r = await repo(config, { "src/a.txt": "a\n", "docs/d.txt": "d\n" });
		await r.git("switch", "-q", "-c", "feature");
		await r.write("src/a.txt", "b\n");
		await r.write("docs/d.txt", "e\n");
		await r.commitAll("change both");
		const trunkSrc = (await r.git("rev-parse", "main:src")).trim();
		const branchSrc = (await r.git("rev-parse", "HEAD:src")).trim();
		// The branch's src/ tree served under the trunk's src/ id: git's own diff sees no change under src/.
		const pack = await gitWithInput(r.root, ["pack-objects", "-q", join(r.root, ".git", "objects", "pack", "pack")], `${branchSrc}\n`);
		await relabel(join(r.root, ".git", "objects", "pack", `pack-${pack}.idx`), trunkSrc);
		expect((await r.git("diff", "--name-only", "main...HEAD")).trim()).toBe("docs/d.txt"); // git itself is fooled
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.scopes_changed).toContain("src");
		expect(result.steps?.find((step) => step.label === "scope:src")?.outcome).toBe("failed");
	});
	test("a tree git would not write (a zero-padded folder mode, a repeated name) is refused, not read another way", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		const { entry, write, config, readme } = await rawTrees(r);
		const folder = await write(entry("100644", "run.sh", readme));
		for (const root of [
			Buffer.concat([entry("100644", "README.md", readme), entry("040000", "ci", folder), entry("100644", "discern.toml", config)]),
			Buffer.concat([
				entry("100644", "README.md", readme),
				entry("40000", "ci", folder),
				entry("40000", "ci", folder),
				entry("100644", "discern.toml", config),
			]),
		]) {
			const tree = await write(root);
			const commit = (await gitWithInput(r.root, ["commit-tree", tree, "-p", "HEAD", "-m", "odd tree"], "")).trim();
			await r.git("reset", "-q", "--hard", commit);
			const result = await runDone(r, { rerun: true });
			expect(result.ok).toBe(false);
			expect(result.error).toBe("dirty_worktree");
			expect(result.message).toContain("tree git does not write");
		}
	});
	test("a folder where .gitmodules or .gitattributes belongs is refused: git checks it out, but its fsck (and a host checking pushes) rejects the commit", async () => {
		for (const [folder, check] of [
			[".gitmodules", "gitmodulesBlob"],
			["sub/GITATT~1", "gitattributesBlob"],
		] as const) {
			const r = await repo(`[jobs]\ntest = "true"\n`, { "README.md": "# fixture\n", [`${folder}/settings`]: "not git's settings\n" });
			expect((await r.git("fsck", "--no-dangling").catch((error: Error) => error.message)).toString()).toContain(check);
			const result = await runDone(r);
			expect({ folder, error: result.error }).toEqual({ folder, error: "dirty_worktree" });
			expect(result.message).toContain("named as a file of git's settings");
			expect(await Bun.file(join(r.root, ".git/discern/proof.json")).exists()).toBe(false);
		}
	});

	test("a trunk that holds such a folder is still judged against: the branch that removes it gets a Proof", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`, { "README.md": "# fixture\n", ".gitmodules/settings": "x\n" });
		await r.git("switch", "-q", "-c", "mend");
		await r.git("rm", "-q", "-r", ".gitmodules");
		await r.commitAll("remove the folder fsck rejects");
		const result = await runDone(r);
		expect(result.ok).toBe(true);
	});

	test("a name git would not check out (`.git` in another spelling, a link for .gitmodules) is refused: git would not index it either", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		const { entry, write, config, readme } = await rawTrees(r);
		const hooks = await write(entry("100644", "pre-commit", readme));
		const start = (await r.git("rev-parse", "HEAD")).trim();
		// Each beside README.md and discern.toml, in git's order; on a disk that folds case or NTFS names, each would be .git or write through a link.
		// `x\.git`: NTFS reads the backslash as a separator, and a checkout refuses it (the hostile pass's case).
		// Each is also put in the folder by hand, as the commit holds it (a checkout refuses to): only the refusal stands between it and a Proof.
		const fixture = "# fixture\n";
		// git checks each folder on a link's path as the link: a link below a folder `.gitmodules` is refused (the second hostile pass's case).
		const linkBelow = await write(entry("120000", "x", readme));
		const cases = [
			{
				odd: entry("40000", ".gitmodules", linkBelow),
				first: true,
				make: () => mkdir(join(r.root, ".gitmodules")).then(() => symlink(fixture, join(r.root, ".gitmodules", "x"))),
			},
			{ odd: entry("40000", ".GIT", hooks), first: true, make: () => r.write(".GIT/pre-commit", fixture) },
			{ odd: entry("40000", ".git. ", hooks), first: true, make: () => r.write(".git. /pre-commit", fixture) },
			{ odd: entry("120000", ".gitmodules", readme), first: true, make: () => symlink(fixture, join(r.root, ".gitmodules")) },
			{ odd: entry("120000", "gi7eba~1", readme), first: false, make: () => symlink(fixture, join(r.root, "gi7eba~1")) },
			{ odd: entry("100644", "x\\.git", readme), first: false, make: () => r.write("x\\.git", fixture) },
		];
		for (const { odd, first, make } of cases) {
			const rest = [entry("100644", "README.md", readme), entry("100644", "discern.toml", config)];
			const tree = await write(Buffer.concat(first ? [odd, ...rest] : [...rest, odd]));
			const commit = (await gitWithInput(r.root, ["commit-tree", tree, "-p", start, "-m", "odd name"], "")).trim();
			// Only the branch moves (a checkout refuses such a tree): the evidence walks the commit before it reads a file.
			await r.git("reset", "-q", "--soft", commit);
			await make();
			const result = await runDone(r, { rerun: true });
			for (const made of [".GIT", ".git. ", ".gitmodules", "gi7eba~1", "x\\.git"]) await rm(join(r.root, made), { recursive: true, force: true });
			expect(result.ok).toBe(false);
			expect(result.error).toBe("dirty_worktree");
			expect(result.message).toContain("would not check out");
		}
		// The same tree with `GIT~1` (the short name NTFS gives .git) is refused; with `GIT` it is an ordinary folder.
		for (const [name, refused] of [
			["GIT~1", true],
			["GIT", false],
		] as const) {
			const tree = await write(Buffer.concat([entry("40000", name, hooks), entry("100644", "README.md", readme), entry("100644", "discern.toml", config)]));
			await r.git(
				"reset",
				"-q",
				refused ? "--soft" : "--hard",
				(await gitWithInput(r.root, ["commit-tree", tree, "-p", start, "-m", "short name"], "")).trim(),
			);
			const result = await runDone(r, { rerun: true });
			expect(result.message.includes("would not check out")).toBe(refused);
			expect(result.ok).toBe(!refused);
		}
	});
});

describe("what an uncommitted ignore rule hides", () => {
	test("a folder whose own uncommitted .gitignore says `*` hides nothing from the gate", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`, { "tests/test_a.py": "def test_a():\n    assert False\n" });
		await r.write("tests/_local/.gitignore", "*\n");
		await r.write("tests/_local/conftest.py", "collect_ignore_glob = ['*']\n");
		expect((await r.git("status", "--porcelain")).trim()).toBe(""); // git itself sees nothing
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("tests/_local/.gitignore");
	});

	test("a hidden folder that ignores itself is no exception: a tool reads its settings from one (.cargo/config.toml)", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		await r.write(".cargo/.gitignore", "*\n");
		await r.write(".cargo/config.toml", '[target.x86_64-unknown-linux-gnu]\nrunner = "true"\n');
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.message).toContain(".cargo/.gitignore");
		expect(result.message).toContain("ignore its folder in a committed .gitignore");
	});

	test("a folder named with a leading byte-order mark is not the folder without it: the scope diff sees the change", async () => {
		const config = `[jobs]\ntest = "true"\n\n[scopes.src]\npaths = ["src/**"]\ngate = "exit 1"\n\n[scopes.docs]\npaths = ["docs/**"]\n`;
		const r = await repo(config, { "src/a.sh": "echo a\n", "docs/d.md": "d\n" });
		await r.git("switch", "-q", "-c", "feature");
		await r.write("docs/d.md", "e\n");
		await r.write("src/x.sh", "echo x\n");
		// A copy of the trunk's src/ under \uFEFFsrc: it sorts after src/, and a decoder that drops the mark reads it as src.
		await r.write("\uFEFFsrc/a.sh", "echo a\n");
		await r.commitAll("docs, and src under two names");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.scopes_changed).toContain("src");
	});
});

describe("whose git answers", () => {
	test("a git inside a work tree on PATH (an activated .venv/bin) never answers the gate", async () => {
		const r = await repo(
			`[jobs]
test = "true"
`,
			{ "README.md": "# fixture\n", ".gitignore": ".venv/\n" },
		);
		const marker = join(await makeTempDir("discern-venv-git-"), "ran");
		dirs.push(dirname(marker));
		await mkdir(join(r.root, ".venv", "bin"), { recursive: true });
		await writeFile(
			join(r.root, ".venv", "bin", "git"),
			`#!/bin/sh
echo ran >> '${marker}'
exec '${Bun.which("git")}' "$@"
`,
		);
		await chmod(join(r.root, ".venv", "bin", "git"), 0o755);
		const run = await runDiscern(["done", "--json"], { cwd: r.root, env: { PATH: `${join(r.root, ".venv", "bin")}:${process.env.PATH ?? ""}` } });
		expect((onlyJson(run.stdout) as Loose).ok).toBe(true);
		expect(await Bun.file(marker).exists()).toBe(false);
	});
});

describe("attributes from outside the tree", () => {
	test("a clean filter set in .git/info/attributes cannot make an edited file pass for committed", async () => {
		const r = await repo('[jobs]\ntest = "grep -q good src.txt"\n', { "src.txt": "aaaa\n", "golden.txt": "aaaa\n" });
		await r.git("config", "filter.hide.clean", "cat golden.txt");
		await r.git("config", "filter.hide.smudge", "cat");
		await writeFile(join(r.root, ".git/info/attributes"), "src.txt filter=hide\n");
		await r.write("src.txt", "good\n");
		expect((await r.git("-c", "core.checkStat=minimal", "status", "--porcelain")).trim()).toBe(""); // git itself is fooled
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("info/attributes sets `filter`");
	});

	test("a filter driver a job hides behind a committed macro never runs in discern's own reads: nothing moves after the look", async () => {
		// The job names the filter through a macro the commit defines (the scan of info/attributes reads names, not macros) and
		// configures its smudge: discern's checkout of the converted a.txt would run it after HEAD and the trunk were read.
		const plant = [
			'G=$(git rev-parse --git-common-dir); echo "*.txt evil" > "$G/info/attributes"',
			'git config filter.evil.smudge "sh $PWD/smudge.sh $G"; touch a.txt',
		].join("; ");
		const smudge = 'echo ran > "$1/../smudge-ran"; git update-ref refs/heads/main HEAD; cat\n';
		const r = await repo(`[jobs]\ntest = ${JSON.stringify(plant)}\n`, {
			".gitattributes": "[attr]evil filter=evil\n*.txt text\n",
			"a.txt": "hello\n",
			"smudge.sh": smudge,
		});
		await r.git("switch", "-q", "-c", "feat");
		await r.write("notes.txt", "x\n");
		await r.commitAll("feat");
		const trunk = (await r.git("rev-parse", "main")).trim();
		const result = await runDone(r);
		expect(await Bun.file(join(r.root, "smudge-ran")).exists()).toBe(false);
		expect((await r.git("rev-parse", "main")).trim()).toBe(trunk);
		// The file still holds what the commit's own attributes make of its blob: the Proof is the commit's.
		expect(result.ok).toBe(true);
	});

	test("converted files in a SHA-256 repository are read back through a private repository of the same format", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await rm(join(r.root, ".git"), { recursive: true, force: true });
		await r.git("init", "-q", "--object-format=sha256", "-b", "main");
		await r.git("config", "user.name", "t");
		await r.git("config", "user.email", "t@example.com");
		await r.write(".gitattributes", "*.txt text eol=crlf\n");
		await r.write("data.txt", "line\r\n");
		await r.commitAll("sha256");
		expect((await runDone(r)).ok).toBe(true);
		await r.write("data.txt", "edited\r\n");
		expect((await runDone(r)).error).toBe("dirty_worktree");
	});

	test("a global attributes file that only unsets conversions is fine", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await writeFile(join(r.root, ".git/info/attributes"), "# binary files\n*.png -text -diff\n");
		expect((await runDone(r)).ok).toBe(true);
	});
});

describe("a hostile review's cases: conversions, drivers, submodules, work trees, scopes", () => {
	const FAILS_UNLESS_EDITED = { "check.sh": "exit 1\n", "golden.sh": "exit 1\n" };
	const JOB = '[jobs]\ntest = "sh check.sh"\n';

	test("a committed filter attribute whose driver is redefined locally cannot hide an edit", async () => {
		const r = await repo(JOB, { ...FAILS_UNLESS_EDITED, ".gitattributes": "check.sh filter=lfs\n" });
		await r.git("config", "filter.lfs.clean", `cat ${join(r.root, "golden.sh")}`);
		await r.write("check.sh", "exit 0\n");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("check.sh");
	});

	test("a driver command that starts with git-lfs and then prints the committed blob cannot hide an edit", async () => {
		const r = await repo(JOB, { ...FAILS_UNLESS_EDITED, ".gitattributes": "check.sh filter=lfs\n" });
		const blob = (await r.git("rev-parse", "HEAD:check.sh")).trim();
		await r.git("config", "filter.lfs.clean", `git-lfs clean -- %f >/dev/null 2>&1; git cat-file blob ${blob}`);
		await r.write("check.sh", "exit 0\n");
		expect((await runDone(r)).error).toBe("dirty_worktree");
	});

	test("a Git LFS file is verified against its committed pointer, with no driver run", async () => {
		const content = "the large file's real content\n";
		const oid = new Bun.CryptoHasher("sha256").update(content).digest("hex");
		const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${content.length}\n`;
		const r = await repo('[jobs]\ntest = "true"\n', { ".gitattributes": "*.bin filter=lfs -text\n", "data.bin": pointer });
		// The checkout holds the real content, as git-lfs's smudge leaves it.
		await r.write("data.bin", content);
		expect((await runDone(r)).ok).toBe(true);
		await r.write("data.bin", "not the content the pointer names\n");
		const changed = await runDone(r);
		expect(changed.error).toBe("dirty_worktree");
		expect(changed.message).toContain("data.bin");
	});

	test("an ignored .gitattributes cannot make git see the files differently", async () => {
		const r = await repo(JOB, FAILS_UNLESS_EDITED);
		await writeFile(join(r.root, ".git/info/exclude"), ".gitattributes\n");
		await r.write(".gitattributes", "check.sh -text\n");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain(".gitattributes");
	});

	test("a global attributes file (even named relative to the repository) is not consulted", async () => {
		const r = await repo(JOB, FAILS_UNLESS_EDITED);
		await r.git("config", "filter.hide.clean", `cat ${join(r.root, "golden.sh")}`);
		await r.git("config", "core.attributesFile", ".git/my-attributes");
		await writeFile(join(r.root, ".git/my-attributes"), "check.sh filter=hide\n");
		await r.write("check.sh", "exit 0\n");
		const result = await runDone(r, {}, {});
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
	});

	for (const [setting, value, edit] of [
		// A checkout under autocrlf writes CRLF, which git then calls clean: the bytes the jobs read are not the commit's.
		[
			"core.autocrlf",
			"true",
			async (r: TestRepo) => {
				await rm(join(r.root, "data.txt"));
				await r.git("checkout", "--", "data.txt");
			},
		],
		["core.fileMode", "false", async (r: TestRepo) => chmod(join(r.root, "data.txt"), 0o755)],
	] as const) {
		test(`${setting}=${value} cannot hide a change git would otherwise see`, async () => {
			const r = await repo('[jobs]\ntest = "true"\n', { "data.txt": "line\n" });
			await r.git("config", setting, value);
			await edit(r);
			await r.git("update-index", "-q", "--refresh");
			expect((await r.git("status", "--porcelain")).trim()).toBe(""); // git itself is fooled
			const result = await runDone(r);
			expect(result.error).toBe("dirty_worktree");
			expect(result.message).toContain("data.txt");
		});
	}

	test("core.symlinks=false cannot pass a plain file off as a committed symbolic link", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { "suite/a.test": "x\n" });
		await symlink("suite", join(r.root, "tests"));
		await r.commitAll("a link");
		await r.git("config", "core.symlinks", "false");
		await rm(join(r.root, "tests"));
		await writeFile(join(r.root, "tests"), "suite");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("tests");
	});

	test("a work tree moved by per-worktree config cannot have git judge another folder", async () => {
		const r = await repo(JOB, FAILS_UNLESS_EDITED);
		const pristine = await makeTempDir();
		dirs.push(pristine);
		await runGit(r.root, ["--work-tree", pristine, "checkout", "-f", "HEAD", "--", "."]);
		await r.git("config", "extensions.worktreeConfig", "true");
		await r.git("config", "--worktree", "core.worktree", pristine);
		await writeFile(join(r.root, "check.sh"), "exit 0\n");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
	});

	async function withSubmodule(config: string, files: Record<string, string> = { "lib.txt": "lib\n" }): Promise<{ r: TestRepo; sub: TestRepo }> {
		const sub = await repo("", files);
		const r = await repo(config);
		await r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root, "vendor/lib");
		await r.commitAll("add submodule");
		return { r, sub };
	}

	test("a same-size edit inside a submodule with its mtime put back is still dirty", async () => {
		const { r } = await withSubmodule('[jobs]\ntest = "true"\n', { "lib.txt": "aaaa\n" });
		const path = join(r.root, "vendor/lib/lib.txt");
		const old = new Date("2020-01-01T00:00:00");
		await utimes(path, old, old);
		await runGit(join(r.root, "vendor/lib"), ["update-index", "--refresh"]);
		await writeFile(path, "bbbb\n");
		await utimes(path, old, old);
		expect((await r.git("status", "--porcelain")).trim()).toBe(""); // git itself is fooled
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("vendor/lib/lib.txt");
	});

	test("files placed in an uninitialised submodule's folder are seen", async () => {
		const { r } = await withSubmodule('[jobs]\ntest = "true"\n');
		await r.git("submodule", "deinit", "-q", "-f", "vendor/lib");
		await writeFile(join(r.root, "vendor/lib/lib.txt"), "not the submodule\n");
		expect((await r.git("status", "--porcelain")).trim()).toBe(""); // git itself is fooled
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("vendor/lib");
	});

	test("a submodule checked out at another commit is dirty even with git told to ignore it", async () => {
		const { r, sub } = await withSubmodule('[jobs]\ntest = "true"\n');
		await sub.write("lib.txt", "newer\n");
		await sub.commitAll("newer");
		await runGit(join(r.root, "vendor/lib"), ["-c", "protocol.file.allow=always", "pull", "-q", "origin", "main"]);
		await r.git("config", "diff.ignoreSubmodules", "all");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("vendor/lib");
	});

	test("a branch that bumps a submodule touches the scope covering its contents, whatever ignore says", async () => {
		const { r, sub } = await withSubmodule('[jobs]\ntest = "true"\n[scopes.vendor]\npaths = ["vendor/lib/**"]\ngate = "echo vendor-gate"\n');
		await r.git("switch", "-q", "-c", "bump");
		await sub.write("lib.txt", "newer\n");
		await sub.commitAll("newer");
		await runGit(join(r.root, "vendor/lib"), ["-c", "protocol.file.allow=always", "pull", "-q", "origin", "main"]);
		await r.git("add", "vendor/lib");
		await r.git("commit", "-q", "-m", "bump");
		await r.git("config", "diff.ignoreSubmodules", "all");
		const result = await runDone(r);
		expect(result.ok).toBe(true);
		expect(result.data?.scopes_changed).toEqual(["vendor"]);
		expect(result.steps?.map((step) => step.label)).toContain("scope:vendor");
		expect(result.data?.all_scopes_because).toContain("submodule `vendor/lib` changed");
	});

	test("a submodule bump touches scopes for paths deep inside it and for file types, not just its folder", async () => {
		const { r, sub } = await withSubmodule(
			'[jobs]\ntest = "true"\n[scopes.native]\npaths = ["vendor/lib/src/**"]\ngate = "echo native"\n[scopes.csrc]\npaths = ["*.c"]\ngate = "echo c"\n',
		);
		await r.git("switch", "-q", "-c", "bump");
		await sub.write("src/a.c", "int main;\n");
		await sub.commitAll("c code");
		await runGit(join(r.root, "vendor/lib"), ["-c", "protocol.file.allow=always", "pull", "-q", "origin", "main"]);
		await r.git("add", "vendor/lib");
		await r.git("commit", "-q", "-m", "bump");
		const result = await runDone(r);
		expect(result.data?.scopes_changed).toEqual(["native", "csrc"]);
	});

	test("a trunk named by a local hint that is the branch itself skips never-loosen loudly and records it", async () => {
		const r = await repo('[jobs]\ntest = "true"\n[standards.cov]\nrun = "echo DISCERN_METRIC cov 50"\ndirection = "up"\nlimit = 40\n');
		await r.git("switch", "-q", "-c", "feat");
		await r.write("discern.toml", '[jobs]\ntest = "true"\n[standards.cov]\nrun = "echo DISCERN_METRIC cov 50"\ndirection = "up"\nlimit = 10\n');
		await r.commitAll("lower the floor");
		expect((await runDone(r)).data?.failed_stage).toBe("standards");
		await r.git("config", "init.defaultBranch", "feat");
		await r.git("branch", "-q", "-m", "main", "old-main");
		const result = await runDone(r);
		expect(result.data?.proof?.trunk.name).toBe("feat");
		expect(result.hints?.join(" ")).toContain("never-loosen check was skipped");
	});

	test("a missing temp folder is a refusal, not a crash", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		const run = await runDiscern(["done", "--json"], { cwd: r.root, env: { TMPDIR: join(r.root, "no-such-folder") } });
		expect(run.exitCode).toBe(1);
		expect(onlyJson(run.stdout).error).toBe("dirty_worktree");
	});
});

describe("a branch that moves the bar itself", () => {
	test("rewriting a job and making a scope neutral is said on the result and recorded in the Proof", async () => {
		const r = await repo('[jobs]\ntest = "sh check.sh"\n[scopes.web]\npaths = ["web/**"]\ngate = "exit 1"\n', { "check.sh": "exit 0\n" });
		await r.git("switch", "-q", "-c", "feat");
		await r.write("discern.toml", '[jobs]\ntest = "true"\n[scopes.web]\npaths = ["web/**"]\ngate = "exit 1"\nneutral = true\n');
		await r.write("web/a.js", "broken(\n");
		await r.commitAll("lower the bar");
		const result = await runDone(r);
		expect(result.ok).toBe(true);
		const said = result.hints?.join(" ") ?? "";
		expect(said).toContain("job `test` changed");
		expect(said).toContain("scope `web` became neutral");
		const proof = JSON.parse(await Bun.file(join(r.root, ".git/discern/proof.json")).text()) as { judgement: { gate_changes: string[] } };
		expect(proof.judgement.gate_changes).toEqual(["job `test` changed", "scope `web` became neutral"]);
		// The line an agent relays to the person who decides on landing carries it too.
		expect(result.data?.proof?.line).toContain("this branch changes the gate: job `test` changed, scope `web` became neutral");
	});
});

describe("a job that removes discern's own state mid-run", () => {
	test("a failing job that deletes the runs folder is a clean red result, not a crash", async () => {
		const r = await repo(
			'[jobs]\ntest = "rm -rf .git/discern/runs; exit 1"\n[standards.cov]\nrun = "sleep 0.2; echo DISCERN_METRIC cov 90"\ndirection = "up"\nlimit = 50\n',
		);
		const run = await runDiscern(["done", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(1);
		const result = onlyJson(run.stdout) as { error: string; data: { failed_stage: string } };
		expect(result.error).toBe("gate_failed");
		expect(result.data.failed_stage).toBe("test");
	});
});

describe("attributes inside ignored folders", () => {
	test("a .gitattributes inside an ignored folder (a package in node_modules) governs no tracked file: a Proof", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { ".gitignore": "node_modules/\n", "README.md": "x\n" });
		await r.write("node_modules/pkg/.gitattributes", "* text eol=crlf\n");
		await r.write("node_modules/pkg/index.js", "x\n");
		const result = await runDone(r);
		expect(result.ok).toBe(true);
	});
});

describe("a folder where the lock belongs", () => {
	test("is write_denied naming the path, and is not moved", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await mkdir(join(r.root, ".git/discern/lock"), { recursive: true });
		const run = await runDiscern(["test", "--json"], { cwd: r.root });
		expect(run.exitCode).toBe(1);
		const result = onlyJson(run.stdout);
		expect(result.error).toBe("write_denied");
		expect(String(result.message)).toContain(".git/discern/lock");
		expect((await stat(join(r.root, ".git/discern/lock"))).isDirectory()).toBe(true);
	});
});

describe("the refs that name the trunk", () => {
	// A look reads HEAD through the branch it was on, with the trunk's refs, in one listing; HEAD found elsewhere is asked plainly.
	test("a job that leaves the commit where it was but moves HEAD (another branch, the trunk, detached) is drift naming where HEAD went", async () => {
		const moves: [string, string][] = [
			["git branch -q other && git symbolic-ref HEAD refs/heads/other", "to branch other"],
			["git symbolic-ref HEAD refs/heads/main", "to branch main"],
			["git checkout -q --detach", "to detached"],
		];
		for (const [move, went] of moves) {
			const r = await repo(`[jobs]\ntest = ${JSON.stringify(move)}\n`);
			await r.git("switch", "-q", "-c", "feat");
			await r.git("merge", "-q", "--ff-only", "main");
			const result = await runDone(r);
			expect({ move, stage: result.data?.failed_stage }).toEqual({ move, stage: "tree_drift" });
			expect(result.data?.drift?.files[0]).toContain(`(HEAD moved from branch feat ${went}`);
			expect(await Bun.file(join(r.root, ".git/discern/proof.json")).exists()).toBe(false);
		}
	}, 30_000);

	test("a FIFO a job leaves where git reads its own files (packed-refs) fails the look within gate.timeout, never hangs the gate", async () => {
		const r = await repo('[gate]\ntimeout = 2\n[jobs]\ntest = "G=$(git rev-parse --git-dir); rm -f $G/packed-refs; mkfifo $G/packed-refs"\n');
		const started = performance.now();
		const result = await runDone(r);
		expect(performance.now() - started).toBeLessThan(15_000);
		// git, stopped, names no HEAD and no trunk: both count as moved.
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(await Bun.file(join(r.root, ".git/discern/proof.json")).exists()).toBe(false);
	}, 30_000);

	test("a branch named HEAD makes git name no ref for HEAD: refused as not on a branch, never as nothing committed", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await r.git("update-ref", "refs/heads/HEAD", "HEAD");
		const result = await runDone(r);
		expect(result.error).toBe("detached_head");
	});

	test("a job that makes the trunk a symbolic ref, or points origin/HEAD elsewhere, moved the trunk: no Proof", async () => {
		// The trunk's commit stays what it was: only the symbolic ref, or origin/HEAD's target, says it moved.
		for (const move of [
			"git branch -q same main && git symbolic-ref refs/heads/main refs/heads/same",
			"git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/feat",
		]) {
			const r = await repo(`[jobs]\ntest = ${JSON.stringify(move)}\n`);
			await r.git("switch", "-q", "-c", "feat");
			await r.write("notes.txt", "x\n");
			await r.commitAll("feat");
			await r.git("update-ref", "refs/remotes/origin/main", "main");
			await r.git("update-ref", "refs/remotes/origin/feat", "feat");
			await r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
			const result = await runDone(r);
			expect({ move, ok: result.ok, error: result.error }).toEqual({ move, ok: false, error: "behind_trunk" });
			expect(result.message).toContain("moved while the gate ran");
			expect(await Bun.file(join(r.root, ".git/discern/proof.json")).exists()).toBe(false);
		}
	}, 30_000);

	test("a job that moves the trunk branch earns no Proof: the trunk moved under the gate (behind_trunk)", async () => {
		const r = await repo('[jobs]\ntest = "git update-ref refs/heads/main HEAD"\n');
		await r.git("switch", "-q", "-c", "feat");
		await r.write("notes.txt", "x\n");
		await r.commitAll("feat");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("behind_trunk");
		expect(result.message).toContain("moved while the gate ran");
		expect(await Bun.file(join(r.root, ".git/discern/proof.json")).exists()).toBe(false);
	});

	test("a job that moves the trunk and changes the tree is tree drift, naming both", async () => {
		const r = await repo('[jobs]\ntest = "git update-ref refs/heads/main HEAD; echo x > stray.txt"\n');
		await r.git("switch", "-q", "-c", "feat");
		await r.write("notes.txt", "x\n");
		await r.commitAll("feat");
		const result = await runDone(r);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files.join(" ")).toContain("the trunk `main`");
	});

	test("a trunk that is a symbolic ref to the branch under test is refused", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await r.git("switch", "-q", "-c", "feat");
		await r.write("notes.txt", "x\n");
		await r.commitAll("feat");
		await r.git("symbolic-ref", "refs/heads/main", "refs/heads/feat");
		const result = await runDone(r);
		expect(result.error).toBe("no_trunk");
	});
});

describe("a third hostile round: the bytes a checkout would write, and local ignore rules", () => {
	test("a tracked path whose name git would unquote is checked as itself, not as its twin", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { ".gitattributes": "* text\n", x: "A\n", '"x"': "A\n" });
		await r.write('"x"', "EVIL\n");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		// The name is quoted in the message, as git quotes it.
		expect(result.message).toContain('"\\"x\\""');
	});

	test("an ident expansion that hides other code is not what a checkout writes", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { ".gitattributes": "a.js ident\n", "a.js": 'const id = "$Id$";\n' });
		await r.write("a.js", 'const id = "$Id: "; module.exports = () => true; "$";\n');
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("a.js");
	});

	test("a job that writes attributes and a filter mid-run to hide an edit is tree drift", async () => {
		const build =
			'git config filter.evil.clean "git cat-file blob $(git rev-parse HEAD:sub/f)"; echo "sub/f filter=evil" >> .git/info/attributes; printf "EVIL\\n" > sub/f';
		const r = await repo(`[jobs]\nbuild = ${JSON.stringify(build)}\ntest = "true"\n`, { ".gitattributes": "* text\n", "sub/f": "good\n" });
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("tree_drift");
	});

	test("a blob that merely mentions a pointer's lines is not an LFS pointer", async () => {
		const good = "echo tested-content; exit 0\n";
		const oid = new Bun.CryptoHasher("sha256").update(good).digest("hex");
		const committed = `version https://git-lfs.github.com/spec/v1\necho committed-content; exit 1\n#\noid sha256:${oid}\nsize ${good.length}\n`;
		const r = await repo('[jobs]\ntest = "true"\n', { ".gitattributes": "t.sh filter=lfs -text\n", "t.sh": committed });
		await r.write("t.sh", good);
		expect((await runDone(r)).error).toBe("dirty_worktree");
	});

	test("a file hidden only by .git/info/exclude is untracked code the jobs would run", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await writeFile(join(r.root, ".git/info/exclude"), "conftest.py\n");
		await r.write("conftest.py", "# forces every test to pass\n");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("conftest.py");
	});

	test("an uncommitted .gitignore that ignores itself is refused", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		await r.write(".gitignore", ".gitignore\nconftest.py\n");
		await r.write("conftest.py", "# forces every test to pass\n");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain(".gitignore");
	});

	test("a tracked file discern cannot read is unreadable, not clean", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { "secret.txt": "x\n" });
		await chmod(join(r.root, "secret.txt"), 0o000);
		const result = await runDone(r);
		await chmod(join(r.root, "secret.txt"), 0o644);
		// Root reads anything: then the file is simply clean.
		if (process.getuid?.() === 0) expect(result.ok).toBe(true);
		else expect(result.message).toContain("secret.txt");
	});
});

describe("a fifth hostile round: folders and converted bytes", () => {
	test("a tracked folder replaced by a symbolic link (ignored by the committed .gitignore) is a change", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { ".gitignore": "/sub\n", "README.md": "x\n" });
		await r.write("sub/a.txt", "hello\n");
		await r.git("add", "-f", "sub/a.txt");
		await r.commitAll("sub");
		const elsewhere = await makeTempDir();
		dirs.push(elsewhere);
		await writeFile(join(elsewhere, "a.txt"), "hello\n");
		await rm(join(r.root, "sub"), { recursive: true });
		await symlink(elsewhere, join(r.root, "sub"));
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("sub/a.txt");
	});

	test("a file the commit converts must hold what a checkout writes, not the blob's raw bytes", async () => {
		const r = await repo('[jobs]\ntest = "true"\n', { ".gitattributes": "f.txt text eol=crlf\n", "f.txt": "a\n" });
		// The commit's blob is "a\n"; a checkout writes "a\r\n". This folder still holds the LF bytes.
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("f.txt");
		await r.write("f.txt", "a\r\n");
		expect((await runDone(r)).ok).toBe(true);
	});
});

describe("a Proof marker written by hand", () => {
	test("is never reused: a red commit with a forged marker runs the gate again and stays red", async () => {
		const r = await repo('[jobs]\ntest = "test ! -e broken.txt"\n');
		expect((await runDone(r)).ok).toBe(true);
		const genuine = JSON.parse(await Bun.file(join(r.root, ".git/discern/proof.json")).text()) as Record<string, unknown> & {
			judgement: { trunk: { name: string } };
		};
		await r.write("broken.txt", "broken\n");
		await r.commitAll("broken");
		expect((await runDone(r)).error).toBe("gate_failed");
		// What an agent could write from what discern keeps: the genuine marker, moved onto the red commit.
		const head = (await r.git("rev-parse", "HEAD")).trim();
		const tree = (await r.git("rev-parse", "HEAD^{tree}")).trim();
		const { seal: _seal, ...record } = genuine;
		const forged = { ...record, head, tree, judgement: { ...genuine.judgement, trunk: { name: genuine.judgement.trunk.name, sha: head } } };
		await writeFile(join(r.root, ".git/discern/proof.json"), JSON.stringify(forged));
		const statusData = (await status(r.ctx(), {})).data as { proof: { state: string } };
		expect(statusData.proof.state).not.toBe("honored");
		const again = await runDone(r, { rerun: true });
		expect(again.ok).toBe(false);
		expect(again.data?.gate_ran).toBe(true);
	});

	test("a genuine marker edited by hand (its line, its jobs) no longer counts", async () => {
		const r = await repo('[jobs]\ntest = "true"\n');
		const first = await runDone(r);
		expect(first.ok).toBe(true);
		const path = join(r.root, ".git/discern/proof.json");
		const marker = JSON.parse(await Bun.file(path).text()) as Record<string, unknown>;
		expect(typeof marker.seal).toBe("string");
		await writeFile(path, JSON.stringify({ ...marker, line: "Proof: main passed everything (99 jobs)" }));
		const second = await runDone(r);
		expect(second.ok).toBe(true);
		expect(second.data?.gate_ran).toBe(true);
		expect(second.data?.proof?.line).not.toContain("99 jobs");
	});
});

describe("the trunk moving while a worktree's gate runs", () => {
	/** A linked worktree whose committed job is `job`, with one commit of its own, and its common dir (the job's copies beside it are removed after). */
	async function worktreeWithJob(job: string, files?: Record<string, string>) {
		const made = await makeWorktreeRepo({ config: `[jobs]\ntest = ${JSON.stringify(job)}\n`, ...(files ? { files } : {}) });
		dirs.push(made.root, dirname(made.wt));
		await made.wtWrite("work.txt", "work\n");
		await made.wtCommit("work");
		const commonDir = (await made.wtGit("rev-parse", "--path-format=absolute", "--git-common-dir")).trim();
		dirs.push(`${commonDir}-copy`, `${commonDir}-fake`);
		return {
			made,
			commonDir,
			gate: async () => (await done(testContext(made.wt, { env: { PATH: process.env.PATH } }), {})) as Loose & { data?: DoneResultData },
		};
	}
	const MOVE_TRUNK = 'git update-ref refs/heads/main "$(git commit-tree -p main -m landed main^{tree})"';
	const RELINKED = "(.git or its commondir was changed: git here reads another repository now)";

	test("is behind_trunk with update as the remedy, never tree drift; no Proof", async () => {
		// Another worktree landing is modelled by the job itself moving the trunk (a commit on main that leaves this tree alone).
		const { made, gate } = await worktreeWithJob(MOVE_TRUNK);
		const result = await gate();
		expectValidEnvelope("done", result);
		expect(result.error).toBe("behind_trunk");
		expect(result.message).toContain("moved while the gate ran");
		expect(result.hints?.[0]).toBe("Run `discern update` to merge it in, then `discern done` again.");
		expect(await Bun.file(join(made.wt, ".git")).exists()).toBe(true);
		const gitDir = (await made.wtGit("rev-parse", "--absolute-git-dir")).trim();
		expect(await Bun.file(join(gitDir, "discern", "proof.json")).exists()).toBe(false);
	});

	test("a job that points the worktree at a copy of the repository (its commondir) while it moves the real trunk earns no Proof", async () => {
		const job = [
			'G=$(git rev-parse --absolute-git-dir); C=$(git rev-parse --path-format=absolute --git-common-dir); cp -r "$C" "$C-copy"',
			MOVE_TRUNK,
			'echo "$C-copy" > "$G/commondir"',
		].join("; ");
		const { commonDir, gate } = await worktreeWithJob(job);
		const result = await gate();
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toContain(RELINKED);
		expect(await Bun.file(join(commonDir, "worktrees", "x", "discern", "proof.json")).exists()).toBe(false);
	});

	test("a job that points the worktree's .git at another repository is drift: git in that folder no longer reads the one judged", async () => {
		const { gate } = await worktreeWithJob('echo "gitdir: $(git rev-parse --path-format=absolute --git-common-dir)" > .git');
		const result = await gate();
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toContain(RELINKED);
	});

	test("a job that puts a link to a copy where the worktree's git dir was (every pointer's text unchanged) while it moves the real trunk earns no Proof", async () => {
		const job = [
			'G=$(git rev-parse --absolute-git-dir); C=$(git rev-parse --path-format=absolute --git-common-dir); F="$C-fake"',
			'mkdir -p "$F/x"; cp -r "$C"/. "$F"/; cp -r "$G" "$F/x/wt"',
			MOVE_TRUNK,
			'mv "$G" "$G-real"; ln -s "$F/x/wt" "$G"',
		].join("; ");
		const { commonDir, gate } = await worktreeWithJob(job);
		const result = await gate();
		expect(result.ok).toBe(false);
		expect(result.data?.drift?.files).toContain(RELINKED);
		for (const gitDir of [join(commonDir, "worktrees", "x"), join(commonDir, "worktrees", "x-real"), join(`${commonDir}-fake`, "x", "wt")]) {
			expect(await Bun.file(join(gitDir, "discern", "proof.json")).exists()).toBe(false);
		}
	});

	test("git's own variables in discern's environment (GIT_COMMON_DIR) cannot bring a job's filter into discern's checkout", async () => {
		const plant =
			'C=$(git rev-parse --path-format=absolute --git-common-dir); echo "*.txt evil" > "$C/info/attributes"; git config --file "$C/config" filter.evil.smudge "sh $PWD/smudge.sh"; touch a.txt';
		const { made, commonDir } = await worktreeWithJob(plant, {
			".gitattributes": "[attr]evil filter=evil\n*.txt text\n",
			"a.txt": "hello\n",
			"smudge.sh": 'echo ran > "$(dirname "$0")/smudge-ran"; cat\n',
		});
		const gitDir = (await made.wtGit("rev-parse", "--absolute-git-dir")).trim();
		const run = await runDiscern(["done", "--json"], {
			cwd: made.wt,
			env: { ...process.env, GIT_DIR: gitDir, GIT_COMMON_DIR: commonDir, GIT_WORK_TREE: made.wt },
		});
		expect(await Bun.file(join(made.wt, "smudge-ran")).exists()).toBe(false);
		expect((onlyJson(run.stdout) as Loose).ok).toBe(true);
	});

	test("a FIFO a job puts where the worktree's .git was is drift, never a read that hangs", async () => {
		const { gate } = await worktreeWithJob("rm .git && mkfifo .git");
		const result = await gate();
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toContain(RELINKED);
	}, 15_000);
});

describe("a seal key that is not one", () => {
	for (const [what, arrange] of [
		["malformed", async (key: string) => writeFile(key, "not a key\n")],
		["a folder", async (key: string) => mkdir(join(key, "inside"), { recursive: true })],
		[
			"a symlink to a valid-looking key elsewhere",
			async (key: string) => {
				const elsewhere = join(dirname(key), "..", "elsewhere-key");
				await writeFile(elsewhere, `${"ab".repeat(32)}\n`);
				await symlink(elsewhere, key);
			},
		],
	] as const) {
		test(`${what}: replaced by a fresh key, so done seals its Proof and status calls it honored`, async () => {
			const r = await repo('[jobs]\ntest = "true"\n');
			const key = join(r.root, ".git", "discern", "proof-key");
			await mkdir(dirname(key), { recursive: true });
			await arrange(key);
			const result = await runDone(r);
			expect(result.ok).toBe(true);
			const marker = JSON.parse(await Bun.file(join(r.root, ".git/discern/proof.json")).text()) as { seal: unknown };
			expect(marker.seal).toBeString();
			expect((await lstat(key)).isFile()).toBe(true);
			expect((await stat(key)).mode & 0o777).toBe(0o600);
			expect(((await status(r.ctx(), {})).data as { proof: { state: string } }).proof.state).toBe("honored");
		});
	}
});

describe("the seal key is read afresh on every use (a long-running discern mcp)", () => {
	test("deleted or replaced after sealing: the old seal no longer holds", async () => {
		const { sealHolds, sealOf } = await import("../../src/proof/seal.ts");
		const r = await makeRepo({ config: '[jobs]\ntest = "true"\n' });
		try {
			const gitDir = join(r.root, ".git");
			const keyFile = join(gitDir, "discern", "proof-key");
			const seal = await sealOf(gitDir, "content", { create: true });
			expect(await sealHolds(gitDir, "content", seal)).toBe(true);
			await rm(keyFile);
			expect(await sealHolds(gitDir, "content", seal)).toBe(false);
			expect(await sealOf(gitDir, "content", { create: false })).toBeNull();
			// A new key: the old seal stays dead, the new one seals afresh.
			const fresh = await sealOf(gitDir, "content", { create: true });
			expect(fresh).not.toBe(seal);
			expect(await sealHolds(gitDir, "content", seal)).toBe(false);
			await writeFile(keyFile, `${"ab".repeat(32)}\n`);
			expect(await sealHolds(gitDir, "content", fresh)).toBe(false);
		} finally {
			await r.remove();
		}
	});
});

/** Refused with `error`, the message naming `mention`, and no Proof left behind. */
async function expectRefusedWithoutProof(r: TestRepo, result: { ok: boolean; error?: string; message: string }, error: string, mention: string): Promise<void> {
	expect(result.ok).toBe(false);
	expect(result.error).toBe(error);
	expect(result.message).toContain(mention);
	expect(await Bun.file(join(r.root, ".git", "discern", "proof.json")).exists()).toBe(false);
}

/**
 * Tree objects written byte for byte (`hash-object --literally`, so git
 * writes what it never would), with the ids of the fixture's README.md and
 * discern.toml to fill them.
 */
async function rawTrees(r: TestRepo) {
	const entry = (mode: string, name: string, object: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(object, "hex")]);
	const write = async (bytes: Buffer): Promise<string> => {
		const child = Bun.spawn(["git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin"], { cwd: r.root, stdin: new Blob([bytes]), stdout: "pipe" });
		const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		return out.trim();
	};
	const config = (await r.git("rev-parse", "HEAD:discern.toml")).trim();
	const readme = (await r.git("rev-parse", "HEAD:README.md")).trim();
	return { entry, write, config, readme };
}

/**
 * A git on PATH that does what its caller's neighbours might, once, just
 * before the first call naming `trigger`, then runs the real git: the moment
 * between two of the gate's reads, made exact.
 */
async function gitThatMoves(trigger: string, action: string): Promise<string> {
	const real = Bun.which("git");
	if (!real) throw new Error("git is not on PATH");
	const bin = await makeTempDir("discern-git-between-");
	dirs.push(bin);
	const flag = join(bin, "done-once");
	await writeFile(
		join(bin, "git"),
		`#!/bin/sh\nfor arg in "$@"; do\n\tif [ "$arg" = '${trigger}' ] && [ ! -e '${flag}' ]; then : > '${flag}'; ${action}; break; fi\ndone\nexec '${real}' "$@"\n`,
	);
	await chmod(join(bin, "git"), 0o755);
	return `${bin}:${process.env.PATH ?? ""}`;
}

describe("what git's listing of the tree does not show", () => {
	test("a FIFO in a tracked folder (git lists no such file, a job opens it by name) cannot earn a Proof", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`, { "README.md": "# fixture\n", "src/a.txt": "a\n" });
		await r.git("switch", "-q", "-c", "feature");
		await r.write("src/a.txt", "b\n");
		await r.commitAll("change");
		const fifo = Bun.spawn(["mkfifo", join(r.root, "src", "GNUmakefile")]);
		expect(await fifo.exited).toBe(0);
		expect((await r.git("status", "--porcelain", "--untracked-files=all", "--ignored")).trim()).toBe("");
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("src/GNUmakefile");
	});

	test("a FIFO in a new folder that holds nothing else (git lists nothing there) cannot earn a Proof", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		await mkdir(join(r.root, ".cargo"));
		expect(await Bun.spawn(["mkfifo", join(r.root, ".cargo", "config.toml")]).exited).toBe(0);
		expect((await r.git("status", "--porcelain", "--untracked-files=all")).trim()).toBe("");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain(".cargo/config.toml");
	});

	test("a .git file below the root (a job's git there takes its config) cannot earn a Proof", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`, { "README.md": "# fixture\n", "pkg/app.py": "print(1)\n" });
		await r.write("pkg/.git", "gitdir: /nowhere\n");
		expect((await r.git("status", "--porcelain", "--untracked-files=all")).trim()).toBe("");
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("pkg/.git");
	});

	test("a job that rewrites the private index in the temp folder hides nothing: the index is rebuilt, the edit is drift", async () => {
		const build = `printf 'edited by a job\\r\\n' > data.txt; B=$(printf 'edited by a job\\n' | git hash-object -w --stdin); for idx in "\${TMPDIR:-/tmp}"/discern-evidence-*/index; do GIT_INDEX_FILE="$idx" git update-index --cacheinfo 100644,"$B",data.txt; done; true`;
		const r = await repo(`[jobs]\nbuild = ${JSON.stringify(build)}\ntest = "true"\n`, {
			".gitattributes": "*.txt text eol=crlf\n",
			"data.txt": "committed\r\n",
		});
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toContain("data.txt");
	});

	test("a FIFO, a folder or a link a job puts where the private index was is replaced, never read: the gate neither hangs nor fails", async () => {
		for (const put of ['mkfifo "$idx"', 'mkdir -p "$idx/x"', 'ln -s /dev/zero "$idx"']) {
			const build = `for idx in "\${TMPDIR:-/tmp}"/discern-evidence-*/index; do rm -f "$idx"; ${put}; done; true`;
			const r = await repo(`[jobs]\nbuild = ${JSON.stringify(build)}\ntest = "true"\n`);
			const result = await runDone(r);
			// The private index is discern's own file, not the tree: written again, the look goes on, and the tree held.
			expect({ put, ok: result.ok, error: result.error }).toEqual({ put, ok: true, error: undefined });
		}
	}, 30_000);

	test("a job that plants objects in the private folders (a loose object under the committed blob's id) hides nothing", async () => {
		// The job edits data.txt, then files the edit's blob, normalised, under the committed blob's id wherever discern keeps objects.
		const build = [
			`printf 'fixed\\r\\n' > data.txt`,
			`D=$(git rev-parse HEAD:data.txt); T=$(mktemp -d); git init -q "$T"; E=$(printf 'fixed\\n' | git --git-dir="$T/.git" hash-object -w --stdin)`,
			`for o in "\${TMPDIR:-/tmp}"/discern-evidence-*/objects "\${TMPDIR:-/tmp}"/discern-evidence-*/objects-*; do mkdir -p "$o/\${D%"\${D#??}"}"; cp -f "$T/.git/objects/\${E%"\${E#??}"}/\${E#??}" "$o/\${D%"\${D#??}"}/\${D#??}"; done`,
			`rm -rf "$T"; true`,
		].join("; ");
		const r = await repo(`[jobs]\nbuild = ${JSON.stringify(build)}\ntest = "grep -q fixed data.txt"\n`, {
			".gitattributes": "*.txt text eol=crlf\n",
			"data.txt": "broken\r\n",
		});
		const result = await runDone(r);
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("tree_drift");
		expect(result.data?.drift?.files).toContain("data.txt");
	});

	test("a folder whose name is not UTF-8, or too deep to open by its full path, is never taken for an empty one", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		const odd = Buffer.concat([Buffer.from(`${r.root}/cfg`), Buffer.from([0xff])]);
		await mkdir(odd);
		const result = await runDone(r);
		expect(result.error).toBe("dirty_worktree");
		expect(result.message).toContain("cfg");

		const deep = await repo(`[jobs]\ntest = "true"\n`);
		// Twenty levels of 200 characters: git walks them relative to the root, an absolute path is longer than the system takes.
		const level = "a".repeat(200);
		const made = Bun.spawn([
			"sh",
			"-c",
			`cd '${deep.root}' && mkdir d && cd d && for i in $(seq 20); do mkdir ${level} && cd ${level}; done && mkfifo Makefile`,
		]);
		expect(await made.exited).toBe(0);
		const refused = await runDone(deep);
		expect(refused.error).toBe("dirty_worktree");
	});

	test("a folder git could not open (it warns and exits 0) is never taken for one without untracked files", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		// Root reads every folder: the warning git prints for one it cannot open, around the real git's answer.
		const real = Bun.which("git");
		const bin = await makeTempDir("discern-git-warns-");
		dirs.push(bin);
		await writeFile(
			join(bin, "git"),
			`#!/bin/sh\n'${real}' "$@"; code=$?\nfor arg in "$@"; do [ "$arg" = --others ] && echo "warning: could not open directory 'tests/': Permission denied" >&2; done\nexit $code\n`,
		);
		await chmod(join(bin, "git"), 0o755);
		const run = await runDiscern(["done", "--json"], { cwd: r.root, env: { PATH: `${bin}:${process.env.PATH ?? ""}` } });
		const result = onlyJson(run.stdout) as Loose;
		await expectRefusedWithoutProof(r, result, "dirty_worktree", "could not open directory 'tests/'");
	});

	test("an `sh` reached through a link a checkout holds (swappable by a job) never runs the jobs", async () => {
		const r = await repo(`[jobs]\ntest = "exit 1"\n`, { "README.md": "# fixture\n", ".gitignore": "node_modules/\n" });
		const outside = await makeTempDir("discern-sh-chain-");
		dirs.push(outside);
		await mkdir(join(outside, "fake"), { recursive: true });
		await mkdir(join(outside, "bin"), { recursive: true });
		await writeFile(join(outside, "fake", "sh"), "#!/bin/dash\necho tests passed\nexit 0\n");
		await chmod(join(outside, "fake", "sh"), 0o755);
		// PATH's folder is outside any checkout, and so is the file at the end; the hop between is the checkout's.
		await mkdir(join(r.root, "node_modules", ".bin"), { recursive: true });
		await symlink(join(outside, "fake", "sh"), join(r.root, "node_modules", ".bin", "sh"));
		await symlink(join(r.root, "node_modules", ".bin", "sh"), join(outside, "bin", "sh"));
		const result = await runDone(r, {}, { PATH: `${join(outside, "bin")}:${process.env.PATH ?? ""}` });
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("test");
	});

	test("an `sh` a checkout puts on PATH (node_modules/.bin under npm run) never runs the jobs", async () => {
		const r = await repo(`[jobs]\ntest = "exit 1"\n`, { "README.md": "# fixture\n", ".gitignore": "node_modules/\n" });
		await mkdir(join(r.root, "node_modules", ".bin"), { recursive: true });
		await writeFile(join(r.root, "node_modules", ".bin", "sh"), "#!/bin/dash\necho tests passed\nexit 0\n");
		await chmod(join(r.root, "node_modules", ".bin", "sh"), 0o755);
		const result = await runDone(r, {}, { PATH: `${join(r.root, "node_modules", ".bin")}:${process.env.PATH ?? ""}` });
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("test");
	});
});

describe("what moves between the gate's reads", () => {
	test("no hook of the checkout runs while the gate reads the tree (building its private index would run post-index-change)", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		const marker = join(await makeTempDir("discern-hook-"), "ran");
		dirs.push(dirname(marker));
		await writeFile(join(r.root, ".git", "hooks", "post-index-change"), `#!/bin/sh\necho ran > '${marker}'\n`);
		await chmod(join(r.root, ".git", "hooks", "post-index-change"), 0o755);
		const result = await runDone(r);
		expect(result.ok).toBe(true);
		expect(await Bun.file(marker).exists()).toBe(false);
	});

	test("a branch moved while the gate reads the tree: no Proof names a commit whose files nobody compared", async () => {
		const r = await repo(`[jobs]\ntest = "sh t.sh"\n`, { "t.sh": "exit 0\n" });
		await r.git("switch", "-q", "-c", "feature");
		await r.write("t.sh", "exit 1\n");
		await r.commitAll("red");
		const red = (await r.git("rev-parse", "HEAD")).trim();
		await r.git("reset", "-q", "--hard", "HEAD~1");
		// The evidence resolves HEAD and its branch in one read (green), then lists the untracked files: right then, the branch moves to the red commit.
		// The files were compared with the green commit; HEAD, read again after the jobs, names the red one: drift, no Proof for either.
		// (Its own word on stderr would be git's answer's: ls-files runs with the graft file pinned, which update-ref warns of.)
		const path = await gitThatMoves("ls-files", `'${Bun.which("git")}' update-ref refs/heads/feature ${red} 2>/dev/null`);
		const run = await runDiscern(["done", "--json"], { cwd: r.root, env: { PATH: path } });
		const result = onlyJson(run.stdout) as Loose & { data?: { failed_stage: string | null } };
		expect(result.ok).toBe(false);
		// On a loaded machine the move can land before git says where HEAD is: the files are then judged against the red
		// commit and refused as not it. Either way, no Proof.
		if (result.error === "dirty_worktree") expect(result.message).toContain("t.sh");
		else {
			expect(result.data?.failed_stage).toBe("tree_drift");
			expect(result.message).toContain("HEAD moved");
		}
		expect(await Bun.file(join(r.root, ".git", "discern", "proof.json")).exists()).toBe(false);
	});

	test("a trunk moved after the branch list named it: its discern.toml is read at the commit the judgement records", async () => {
		const standard = (limit: number) =>
			`[jobs]\ntest = "true"\n[standards.cov]\nrun = "echo DISCERN_METRIC cov 95"\ndirection = "up"\nlimit = ${limit}\nmetric = "cov"\n`;
		const r = await repo(standard(90));
		const held = (await r.git("rev-parse", "HEAD")).trim();
		// A looser trunk commit, kept off the branch (the trunk points back at `held`).
		await r.write("discern.toml", standard(10));
		await r.commitAll("looser");
		const looser = (await r.git("rev-parse", "HEAD")).trim();
		await r.git("reset", "-q", "--hard", held);
		await r.git("switch", "-q", "-c", "feature");
		await r.write("discern.toml", standard(50));
		await r.commitAll("loosen to 50");
		// Between the branch list and the trunk's config: the trunk jumps to the looser commit.
		const path = await gitThatMoves("show", `'${Bun.which("git")}' update-ref refs/heads/main ${looser}`);
		const run = await runDiscern(["done", "--json"], { cwd: r.root, env: { PATH: path } });
		const result = onlyJson(run.stdout) as Loose & { data?: { failed_stage: string | null; loosened?: unknown } };
		expect(result.ok).toBe(false);
		expect(result.data?.failed_stage).toBe("standards");
		expect(result.data?.loosened).toEqual([{ standard: "cov", field: "limit", before: "90", after: "50" }]);
	});
});

describe("programs the repository names, and objects git cannot read", () => {
	test("no program a checkout's configuration or hooks name runs while done reads (fsmonitor, every hook)", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n\n[scopes.api]\npaths = ["api/**"]\ngate = "true"\n`);
		await r.git("switch", "-q", "-c", "feature");
		await r.write("api/a.txt", "a\n");
		await r.commitAll("api");
		const marker = join(await makeTempDir("discern-ran-"), "ran");
		dirs.push(dirname(marker));
		const script = join(dirname(marker), "program");
		await writeFile(script, `#!/bin/sh\necho "$0 $*" >> '${marker}'\n`);
		await chmod(script, 0o755);
		await r.git("config", "core.fsmonitor", script);
		for (const hook of ["post-index-change", "post-checkout", "pre-commit", "reference-transaction", "pre-auto-gc", "post-rewrite"]) {
			await writeFile(join(r.root, ".git", "hooks", hook), `#!/bin/sh\nexec '${script}' ${hook}\n`);
			await chmod(join(r.root, ".git", "hooks", hook), 0o755);
		}
		const result = await runDone(r);
		expect(result.ok).toBe(true);
		expect(result.data?.scopes_changed).toEqual(["api"]);
		expect(await Bun.file(marker).exists()).toBe(false);
	});

	test("a trunk discern.toml git cannot read is no trunk to judge against, never a trunk without one", async () => {
		const standard = (limit: number) =>
			`[jobs]\ntest = "true"\n[standards.cov]\nrun = "echo DISCERN_METRIC cov 95"\ndirection = "up"\nlimit = ${limit}\nmetric = "cov"\n`;
		const r = await repo(standard(90));
		await r.git("switch", "-q", "-c", "feature");
		await r.write("discern.toml", standard(10));
		await r.commitAll("loosen");
		const blob = (await r.git("rev-parse", "main:discern.toml")).trim();
		const object = join(r.root, ".git", "objects", blob.slice(0, 2), blob.slice(2));
		await rename(object, `${object}.aside`);
		const result = await runDone(r);
		await rename(`${object}.aside`, object);
		await expectRefusedWithoutProof(r, result, "no_trunk", "git could not read");
	});

	test("a trunk commit git cannot read, or a branch list with a ref git skips: refused, not judged against no trunk", async () => {
		const r = await repo(`[jobs]\ntest = "true"\n`);
		const trunkTip = (await r.git("rev-parse", "HEAD")).trim();
		await r.git("switch", "-q", "-c", "feature");
		await r.write("work.txt", "work\n");
		await r.commitAll("work");
		const object = join(r.root, ".git", "objects", trunkTip.slice(0, 2), trunkTip.slice(2));
		await rename(object, `${object}.aside`);
		const unreadCommit = await runDone(r);
		await rename(`${object}.aside`, object);
		expect(unreadCommit.ok).toBe(false);
		expect(unreadCommit.error).toBe("no_trunk");
		expect(unreadCommit.message).toContain("git could not read the commit");
		// A ref file holding garbage: git lists the others with a warning and exits 0.
		await writeFile(join(r.root, ".git", "refs", "heads", "main"), "garbage\n");
		const skipped = await runDone(r);
		expect(skipped.ok).toBe(false);
		expect(skipped.error).toBe("no_trunk");
		expect(skipped.message).toContain("git could not list the branches");
		await writeFile(join(r.root, ".git", "refs", "heads", "main"), `${trunkTip}\n`);
	});
});
