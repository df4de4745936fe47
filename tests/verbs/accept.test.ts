import { afterAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, lstat, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { processStart } from "../../src/platform/process-start.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, makeTempDir, runGit, testContext } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

const runGitIn = (cwd: string, ...args: string[]) => runGit(cwd, args);

import { type Journal, readJournal, writeJournal } from "../../src/verbs/accept/journal.ts";
import type { AcceptData } from "../../src/verbs/accept/schema.ts";
import type { StartData } from "../../src/verbs/start/schema.ts";
import { ensureBinary, onlyJson, runDiscern } from "../helpers/cli.ts";
import { processesWithCommandLine } from "../helpers/processes.ts";

const made: string[] = [];
afterAll(async () => {
	await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

const CONFIG = `[jobs]
lint = "true"
test = "test ! -f fail.txt"

[scopes.docs]
paths = ["docs/**"]

[scopes.app]
paths = ["src/**"]
`;

async function fixture(config = CONFIG, options: { id?: string } = {}): Promise<WorktreeRepo> {
	const repo = await makeWorktreeRepo({ config, files: { "README.md": "# fixture\n", "src/a.ts": "export const a = 1;\n" }, ...options });
	made.push(...repo.cleanupDirs);
	return repo;
}

/** Everything a refusal must leave alone: every ref (notes included), the main checkout's files and status. */
async function snapshot(repo: WorktreeRepo): Promise<string> {
	const refs = await repo.git("for-each-ref", "--format=%(refname) %(objectname)");
	const status = await repo.git("status", "--porcelain=v2", "--untracked-files=all");
	const wtStatus = existsSync(repo.wt) ? await repo.wtGit("status", "--porcelain=v2", "--untracked-files=all") : "gone";
	return `${refs}\n${status}\n${wtStatus}\n${existsSync(repo.wt)}`;
}

const data = (result: { data?: unknown }) => result.data as AcceptData;

async function landings(repo: WorktreeRepo): Promise<number> {
	const log = await repo.git("reflog", "show", "--format=%gs", "refs/heads/main");
	return log.split("\n").filter((line) => line.includes("discern accept")).length;
}

/** The journal accept writes for `repo`'s branch landing `head` on a trunk that was at `old`, with its Proof record. */
function journalOf(repo: WorktreeRepo, head: string, old: string, step: Pick<Journal, "state" | "id" | "done"> & Partial<Journal>): Journal {
	const proof = {
		version: 2,
		head,
		tree: "t",
		branch: repo.branch,
		config_digest: "d",
		judgement: { trunk: { name: "main", sha: old }, scopes_changed: [], all_scopes_because: null, never_loosen: "checked", gate_changes: [] },
		jobs: [],
		standards: [],
		time: "now",
		duration_s: 0,
		line: "Proof: agent/x",
	};
	return {
		version: 1,
		branch: repo.branch,
		path: repo.wt,
		trunk: "main",
		sha: head,
		previous_trunk_sha: old,
		proof_line: "Proof: agent/x",
		proof,
		checkout: repo.root,
		consent: "confirmed",
		destroyed: [],
		time: "now",
		...step,
	};
}

describe("accept", () => {
	test("without consent it refuses and changes nothing (refs, notes, files)", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt));
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("awaiting_consent");
		expect(await snapshot(repo)).toBe(before);
	});

	test("consent names a commit: a commit made after the owner approved is refused, changing nothing; the approved one lands", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const approved = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const refused = await invokeVerb("accept", testContext(repo.wt));
		// The refusal's retry names the commit the Proof line is about.
		expect(refused.hints?.at(-1)).toContain(`--sha ${approved.slice(0, 12)}`);
		await repo.wtWrite("src/c.ts", "export const c = 3;\n");
		await repo.wtCommit("c, after the owner's approval");
		const before = await snapshot(repo);
		const other = await invokeVerb("accept", testContext(repo.wt), { confirmed: true, sha: approved.slice(0, 12) });
		expect(other.ok).toBe(false);
		if (!other.ok) expect(other.error).toBe("awaiting_consent");
		expect(other.message).toContain("not the commit they approved");
		expect(await snapshot(repo)).toBe(before);
		// The 7 digits git shows by default are not consent: a second commit can be made to share them.
		const prefix = await runDiscern(["accept", "--confirmed", "--sha", approved.slice(0, 7), "--json"], { cwd: repo.wt });
		expect(prefix.exitCode).toBe(2);
		expect(String(onlyJson(prefix.stdout).message)).toContain("12 to 64 hex digits");
		expect(await snapshot(repo)).toBe(before);
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const landed = await invokeVerb("accept", testContext(repo.wt), { confirmed: true, sha: head });
		expect(landed.ok).toBe(true);
		expect(await repo.sha("main")).toBe(head);
	});

	test("confirmed: lands the proven commit with a CAS, moves the main checkout's files, writes a parseable note, cleans up", async () => {
		const repo = await fixture(CONFIG, { id: "x-1a2b3c" });
		await repo.write("notes.local", "untracked, kept\n");
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const old = await repo.sha("main");
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.message).toContain("Proof:");
		expect(result.ok).toBe(true);
		const landed = data(result);
		expect(landed).toMatchObject({
			landed: true,
			sha: head,
			trunk: "main",
			previous_trunk_sha: old,
			worktree_removed: true,
			branch_deleted: true,
			note_ref: "refs/notes/discern",
			main_path: repo.root,
		});
		expect(await repo.sha("main")).toBe(head);
		// The main checkout is on the trunk: its files moved, its untracked file stayed, and it is clean.
		expect(await readFile(join(repo.root, "src/b.ts"), "utf8")).toBe("export const b = 2;\n");
		expect(await readFile(join(repo.root, "notes.local"), "utf8")).toBe("untracked, kept\n");
		expect((await repo.git("status", "--porcelain", "--untracked-files=no")).trim()).toBe("");
		expect(existsSync(repo.wt)).toBe(false);
		expect((await repo.git("branch", "--list", repo.branch)).trim()).toBe("");
		const note = JSON.parse((await repo.git("notes", "--ref=refs/notes/discern", "show", head)).trim()) as {
			payloadType: string;
			payload: string;
			signatures: unknown[];
		};
		expect(note.payloadType).toBe("application/vnd.in-toto+json");
		expect(note.signatures).toEqual([]);
		const statement = JSON.parse(Buffer.from(note.payload, "base64").toString("utf8"));
		expect(statement._type).toBe("https://in-toto.io/Statement/v1");
		expect(statement.predicateType).toBe("https://discern.sh/proof/v1");
		expect(statement.subject[0].digest.gitCommit).toBe(head);
		expect(statement.predicate.head).toBe(head);
		expect(await landings(repo)).toBe(1);
	});

	test("pre_authorized comes from the trunk's committed config; a branch cannot grant itself authority", async () => {
		const trusted = `${CONFIG}\n[acceptance]\npre_authorized = ["docs"]\n`;
		const docs = await fixture(trusted);
		await docs.wtWrite("docs/guide.md", "# guide\n");
		await docs.wtCommit("docs");
		const result = await invokeVerb("accept", testContext(docs.wt));
		expect(result.ok).toBe(true);
		expect(data(result).consent).toBe("pre_authorized");

		const sneaky = await fixture(trusted);
		await sneaky.wtWrite("discern.toml", `${CONFIG}\n[acceptance]\npre_authorized = ["docs", "app"]\n`);
		await sneaky.wtWrite("src/b.ts", "export const b = 2;\n");
		await sneaky.wtCommit("grant myself");
		const before = await snapshot(sneaky);
		const refused = await invokeVerb("accept", testContext(sneaky.wt));
		expect(refused.ok).toBe(false);
		if (!refused.ok) expect(refused.error).toBe("awaiting_consent");
		expect(await snapshot(sneaky)).toBe(before);
	});

	test("dry run shows the plan, needs no consent and changes nothing", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		expect(result.ok).toBe(true);
		expect(result.dry_run).toBe(true);
		expect((result.plan ?? []).map((item) => item.kind)).toContain("land");
		expect(await snapshot(repo)).toBe(before);
	});

	test("a red gate refuses: nothing lands", async () => {
		const repo = await fixture();
		await repo.wtWrite("fail.txt", "x\n");
		await repo.wtCommit("red");
		const before = await repo.sha("main");
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("gate_failed");
		expect(result.diagnostics?.length ?? 0).toBeGreaterThan(0);
		expect(await repo.sha("main")).toBe(before);
		expect(existsSync(repo.wt)).toBe(true);
	});

	test("a trunk with commits the branch lacks: trunk_moved, nothing changed", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		await repo.write("README.md", "# moved\n");
		await repo.commitAll("trunk moves");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.error).toBe("trunk_moved");
			expect(result.hints.join(" ")).toContain("discern update");
		}
		expect(await snapshot(repo)).toBe(before);
	});

	test("compare-and-swap: a trunk that moves after the judgement makes the landing fail; nothing lands", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		let moved = "";
		const ctx = testContext(repo.wt, {
			confirm: async () => {
				await repo.git("commit", "-q", "--allow-empty", "-m", "someone else lands first");
				moved = await repo.sha("main");
				return true;
			},
		});
		const result = await invokeVerb("accept", ctx);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("trunk_moved");
		expect(await repo.sha("main")).toBe(moved);
		expect(existsSync(repo.wt)).toBe(true);
		expect(await landings(repo)).toBe(0);
		expect(existsSync(join(repo.root, ".git", "discern", "accept", "agent%2Fx.json"))).toBe(false);
	});

	test("an interactive no is no consent", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const before = await repo.sha("main");
		const result = await invokeVerb("accept", testContext(repo.wt, { confirm: async () => false }));
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.error).toBe("awaiting_consent");
			expect(result.message).toContain("Proof:");
		}
		expect(await repo.sha("main")).toBe(before);
	});

	test("the main checkout on the trunk with tracked changes: refused before landing", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		await repo.write("README.md", "# local edit\n");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("dirty_worktree");
		expect(await snapshot(repo)).toBe(before);
		expect(await readFile(join(repo.root, "README.md"), "utf8")).toBe("# local edit\n");
	});

	test("an untracked file in the main checkout where a landed file goes: refused before landing", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		await repo.write("src/b.ts", "mine, untracked\n");
		const before = await repo.sha("main");
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.error).toBe("dirty_worktree");
		expect(await repo.sha("main")).toBe(before);
		expect(await readFile(join(repo.root, "src/b.ts"), "utf8")).toBe("mine, untracked\n");
	});

	test("a branch holding commits beyond what landed is kept", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const proven = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const ctx = testContext(repo.wt, {
			confirm: async () => {
				await repo.wtGit("commit", "-q", "--allow-empty", "-m", "one more, after the Proof");
				return true;
			},
		});
		const result = await invokeVerb("accept", ctx);
		expect(result.ok).toBe(true);
		expect(data(result)).toMatchObject({ landed: true, sha: proven, branch_deleted: false });
		expect(await repo.sha("main")).toBe(proven);
		expect((await repo.git("rev-parse", repo.branch)).trim()).not.toBe(proven);
	});

	test("from the main checkout: --target is required, names a worktree, and `-` strings are only names", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const missing = await invokeVerb("accept", testContext(repo.root), { confirmed: true });
		expect(missing.ok ? "" : missing.error).toBe("unknown_target");
		const dashed = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: "--help" });
		expect(dashed.ok ? "" : dashed.error).toBe("unknown_target");
		const trunkItself = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: "main" });
		expect(trunkItself.ok ? "" : trunkItself.error).toBe("unknown_target");
		const result = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: repo.branch });
		expect(result.ok).toBe(true);
		expect(data(result).main_path).toBe(repo.root);
	});

	test("a worktree cannot land another", async () => {
		const repo = await fixture();
		await repo.git("worktree", "add", "-q", "-b", "agent/y", `${repo.wt}-y`);
		made.push(`${repo.wt}-y`);
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true, target: "agent/y" });
		expect(result.ok ? "" : result.error).toBe("not_main_checkout");
	});

	test("an interrupted accept resumes: cleanup finishes, the trunk never moves twice", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		await repo.git("worktree", "lock", repo.wt);
		const first = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(first.ok).toBe(false);
		if (!first.ok) expect(first.error).toBe("partial_acceptance");
		expect(data(first)).toMatchObject({ landed: true, sha: head, worktree_removed: false });
		expect(await repo.sha("main")).toBe(head);
		await repo.git("worktree", "unlock", repo.wt);
		// No consent asked again: the landing had it.
		const second = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expect(second.ok).toBe(true);
		expect(data(second)).toMatchObject({ landed: true, sha: head, worktree_removed: true, branch_deleted: true, consent: "resumed" });
		expect(await landings(repo)).toBe(1);
		expect(existsSync(repo.wt)).toBe(false);
	});

	test("a journal that says landed while the worktree is still there: resumes without landing again", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const old = await repo.sha("main");
		// As if discern died just after the compare-and-swap.
		await repo.git("update-ref", "refs/heads/main", head, old);
		await repo.git("read-tree", "-m", "-u", old, head);
		// As accept writes it: sealed (a journal written by hand is none, see below).
		await writeJournal(join(repo.root, ".git"), journalOf(repo, head, old, { state: "landing", id: null, done: [] }));
		const result = await invokeVerb("accept", testContext(repo.wt));
		expect(result.ok).toBe(true);
		expect(data(result)).toMatchObject({ landed: true, sha: head, consent: "resumed", worktree_removed: true });
		expect(await repo.sha("main")).toBe(head);
		expect((await repo.git("reflog", "show", "--format=%gs", "refs/heads/main")).split("\n").filter((line) => line.includes("discern accept")).length).toBe(0);
	});

	test("a journal written by hand, or a sealed one edited, is no journal: nothing is claimed landed and no note carries its record", async () => {
		const repo = await fixture();
		const head = await repo.sha("main");
		const proofRecord = {
			version: 2,
			head,
			tree: "t",
			branch: "ghost",
			config_digest: "d",
			judgement: { trunk: { name: "main", sha: head }, scopes_changed: [], all_scopes_because: null, never_loosen: "checked", gate_changes: [] },
			jobs: [],
			standards: [],
			time: "now",
			duration_s: 0,
			line: "Proof: agent/ghost",
		};
		const journal = {
			version: 1 as const,
			state: "landed" as const,
			branch: "ghost",
			id: null,
			path: "/nonexistent",
			trunk: "main",
			sha: head,
			previous_trunk_sha: head,
			proof_line: "Proof: agent/ghost",
			proof: proofRecord,
			checkout: null,
			consent: "confirmed" as const,
			done: ["landed" as const, "checkout_moved" as const],
			destroyed: [],
			time: "now",
		};
		const file = join(repo.root, ".git", "discern", "accept", "ghost.json");
		await mkdir(dirname(file), { recursive: true });
		await writeFile(file, JSON.stringify(journal));
		const byHand = await invokeVerb("accept", testContext(repo.root), { target: "ghost" });
		expect(byHand.ok ? "" : byHand.error).toBe("unknown_target");
		// Sealed, then its record changed: the seal no longer holds.
		await writeJournal(join(repo.root, ".git"), journal);
		await writeFile(file, (await readFile(file, "utf8")).replace('"Proof: agent/ghost"', '"Proof: agent/ghost passed test"'));
		const edited = await invokeVerb("accept", testContext(repo.root), { target: "ghost" });
		expect(edited.ok ? "" : edited.error).toBe("unknown_target");
		// Sealed, then copied to another branch's name: a journal is the one of the name it was written to.
		await writeJournal(join(repo.root, ".git"), journal);
		expect(await readJournal(join(repo.root, ".git"), "ghost")).not.toBeNull();
		await rename(file, join(dirname(file), "ghost2.json"));
		expect(await readJournal(join(repo.root, ".git"), "ghost2")).toBeNull();
		expect(await repo.git("notes", "--ref=refs/notes/discern", "list").catch(() => "")).toBe("");
	});

	test("two accepts at once never both land", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const results = await Promise.all([
			invokeVerb("accept", testContext(repo.wt), { confirmed: true }),
			invokeVerb("accept", testContext(repo.root), { confirmed: true, target: repo.branch }),
		]);
		expect(results.filter((result) => result.ok).length).toBeLessThanOrEqual(1);
		expect(await landings(repo)).toBe(1);
	});

	test("a checkout switched onto the trunk while the gate ran: the landing moves THAT checkout's files, not the one that left", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const other = `${repo.wt}-trunk`;
		made.push(other);
		const ctx = testContext(repo.wt, {
			confirm: async () => {
				// After the judgement, before the landing: the main checkout leaves the trunk, another checkout takes it.
				await repo.git("switch", "-q", "-c", "elsewhere");
				await repo.git("worktree", "add", "-q", other, "main");
				return true;
			},
		});
		const result = await invokeVerb("accept", ctx);
		expect(result.ok).toBe(true);
		expect(await repo.sha("main")).toBe(head);
		expect(await readFile(join(other, "src/b.ts"), "utf8")).toBe("export const b = 2;\n");
		expect((await runGitIn(other, "status", "--porcelain")).trim()).toBe("");
		// The main checkout, now on `elsewhere`, was not touched: no landed file, nothing staged.
		expect(existsSync(join(repo.root, "src/b.ts"))).toBe(false);
		expect((await repo.git("status", "--porcelain")).trim()).toBe("");
		expect((await repo.git("rev-parse", "HEAD")).trim()).not.toBe(head);
	});

	test("the landing goes through the checkout on the trunk (git merge --ff-only): its HEAD, index and files move together", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok).toBe(true);
		expect((await repo.git("rev-parse", "HEAD")).trim()).toBe(head);
		expect((await repo.git("diff-index", "--cached", "HEAD", "--")).trim()).toBe("");
		expect((await repo.git("reflog", "show", "--format=%gs", "-1", "HEAD")).trim()).toContain("discern accept");
	});

	test("two checkouts with the trunk checked out: refused before landing, nothing changed", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const second = `${repo.wt}-second`;
		made.push(second);
		await repo.git("worktree", "add", "-q", "--force", second, "main");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("dirty_worktree");
		expect(result.message).toContain("2 checkouts have the trunk");
		expect(await snapshot(repo)).toBe(before);
		const dry = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		expect(dry.ok ? "" : dry.error).toBe("dirty_worktree");
	});

	test("a main checkout in the middle of a bisect or a rebase of the trunk: refused before landing", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		await repo.git("bisect", "start");
		const before = await snapshot(repo);
		const bisecting = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(bisecting.ok ? "" : bisecting.error).toBe("dirty_worktree");
		expect(bisecting.message).toContain("a bisect");
		expect(await snapshot(repo)).toBe(before);
		await repo.git("bisect", "reset");

		// A rebase of the trunk stopped midway: the main checkout is detached, the trunk not yet rewritten.
		await repo.git("-c", "core.editor=true", "rebase", "-q", "--exec", "false", "--root").catch(() => undefined);
		expect(existsSync(join(repo.root, ".git", "rebase-merge"))).toBe(true);
		const trunk = await repo.sha("main");
		const rebasing = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(rebasing.ok ? "" : rebasing.error).toBe("dirty_worktree");
		expect(rebasing.message).toContain("a rebase");
		expect(await repo.sha("main")).toBe(trunk);
	});

	test("an ignored file where the landing puts a tracked one (the owner's .env): refused, naming it, the file kept", async () => {
		const repo = await makeWorktreeRepo({ config: CONFIG, files: { "README.md": "# fixture\n", ".gitignore": ".env\nbuild/\n" } });
		made.push(...repo.cleanupDirs);
		await repo.write(".env", "SECRET=owner\n");
		await repo.wtWrite(".env", "SECRET=branch\n");
		await repo.wtGit("add", "-f", ".env");
		await repo.wtCommit("track .env");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("dirty_worktree");
		expect(result.message).toContain(".env");
		expect(await readFile(join(repo.root, ".env"), "utf8")).toBe("SECRET=owner\n");
		expect(await snapshot(repo)).toBe(before);
		const dry = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		expect(dry.ok ? "" : dry.error).toBe("dirty_worktree");
	});

	test("a landed file inside an existing ignored folder, or under a file where a folder goes: refused", async () => {
		const repo = await makeWorktreeRepo({ config: CONFIG, files: { "README.md": "# fixture\n", ".gitignore": "build/\nlocal\n" } });
		made.push(...repo.cleanupDirs);
		await repo.write("build/cache.bin", "mine\n");
		await repo.write("local", "a file of mine\n");
		await repo.wtWrite("build/out.txt", "tracked now\n");
		await repo.wtWrite("local/x.txt", "tracked now\n");
		await repo.wtGit("add", "-f", "build/out.txt", "local/x.txt");
		await repo.wtCommit("track into ignored places");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("dirty_worktree");
		expect(result.message).toContain("build/");
		expect(result.message).toContain("local");
		expect(await snapshot(repo)).toBe(before);
		expect(await readFile(join(repo.root, "local"), "utf8")).toBe("a file of mine\n");
	});

	test("a branch with nothing beyond the trunk: nothing_to_prove, no note written or overwritten", async () => {
		const repo = await fixture();
		const trunk = await repo.sha("main");
		await repo.git("notes", "--ref=refs/notes/discern", "add", "-m", "another branch's Proof", trunk);
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("nothing_to_prove");
		expect(await snapshot(repo)).toBe(before);
		expect((await repo.git("notes", "--ref=refs/notes/discern", "show", trunk)).trim()).toBe("another branch's Proof");
	});

	test("after a partial acceptance the worktree goes on: the earlier landing is closed, the worktree kept, the new HEAD needs its own consent and lands", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const first = (await repo.wtGit("rev-parse", "HEAD")).trim();
		await repo.git("worktree", "lock", repo.wt);
		const partial = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(partial.ok ? "" : partial.error).toBe("partial_acceptance");
		await repo.git("worktree", "unlock", repo.wt);
		await repo.wtWrite("src/c.ts", "export const c = 3;\n");
		await repo.wtCommit("c");
		const second = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const asked = await invokeVerb("accept", testContext(repo.wt));
		expect(asked.ok ? "" : asked.error).toBe("awaiting_consent");
		expect(asked.message).toContain(`An earlier accept landed \`agent/x\` @ ${first.slice(0, 7)}`);
		expect(existsSync(repo.wt)).toBe(true);
		expect(await repo.sha("main")).toBe(first);
		expect(existsSync(join(repo.root, ".git", "discern", "accept", "agent%2Fx.json"))).toBe(false);
		const landed = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(landed.ok).toBe(true);
		expect(data(landed)).toMatchObject({ sha: second, previous_trunk_sha: first, worktree_removed: true });
		expect(await repo.sha("main")).toBe(second);
	});

	test("a worktree folder swapped for a symlink into another worktree: refused, the other's commit never lands", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const other = `${repo.wt}-y`;
		made.push(other, `${repo.wt}-moved`);
		await repo.git("worktree", "add", "-q", "-b", "agent/y", other);
		await runGitIn(other, "commit", "-q", "--allow-empty", "-m", "y's unproven work");
		await rename(repo.wt, `${repo.wt}-moved`);
		await symlink(other, repo.wt);
		const before = await repo.sha("main");
		const byBranch = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: repo.branch });
		expect(byBranch.ok ? "" : byBranch.error).toBe("unknown_target");
		// By path, the symlink resolves to both worktrees' folders: ambiguous.
		const byPath = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: repo.wt });
		expect(byPath.ok ? "" : byPath.error).toBe("invalid_arguments");
		expect(await repo.sha("main")).toBe(before);
	});

	test("a symbolic link or a submodule pointer is never pre-authorized, whatever its path; pre-authorized files are each shown", async () => {
		const trusted = `${CONFIG}\n[acceptance]\npre_authorized = ["docs"]\n`;
		const linked = await fixture(trusted);
		await symlink("../src/a.ts", join(linked.wt, "docs-link"));
		await mkdir(join(linked.wt, "docs"), { recursive: true });
		await symlink("../src/a.ts", join(linked.wt, "docs", "a.ts"));
		await linked.wtGit("add", "docs/a.ts");
		await linked.wtGit("commit", "-q", "-m", "a link in docs");
		const refused = await invokeVerb("accept", testContext(linked.wt));
		expect(refused.ok ? "" : refused.error).toBe("awaiting_consent");
		expect(refused.message).toContain("docs/a.ts (a symbolic link)");

		const sub = await fixture(trusted);
		const commit = (await sub.wtGit("rev-parse", "HEAD")).trim();
		await sub.wtGit("update-index", "--add", "--cacheinfo", `160000,${commit},docs/vendor`);
		await sub.wtGit("commit", "-q", "-m", "a submodule in docs");
		const pointer = await invokeVerb("accept", testContext(sub.wt));
		expect(pointer.ok ? "" : pointer.error).toBe("awaiting_consent");
		expect(pointer.message).toContain("docs/vendor (a submodule pointer)");

		const plain = await fixture(trusted);
		await plain.wtWrite("docs/guide.md", "# guide\n");
		await plain.wtCommit("docs");
		const dry = await invokeVerb("accept", testContext(plain.wt), { dry_run: true });
		expect((dry.hints ?? []).join("\n")).toContain("Pre-authorized by the trunk's [acceptance]: docs/guide.md (scope docs)");
	});

	test("a branch that changes ignore rules changes what the gate leaves to the jobs' environment: never pre-authorized", async () => {
		const trusted = `${CONFIG}\n[acceptance]\npre_authorized = ["docs"]\n`;
		const ignoring = await fixture(trusted);
		await ignoring.wtWrite("docs/.gitignore", "conftest.py\n");
		await ignoring.wtCommit("ignore local overrides");
		const refused = await invokeVerb("accept", testContext(ignoring.wt));
		expect(refused.ok ? "" : refused.error).toBe("awaiting_consent");
		expect(refused.message).toContain("the jobs' environment (docs/.gitignore)");
	});

	test("a branch that changes the gate says so to whoever consents: awaiting, dry run, result", async () => {
		const repo = await fixture();
		await repo.wtWrite("discern.toml", CONFIG.replace('test = "test ! -f fail.txt"', 'test = "true"'));
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("weaker test");
		const asked = await invokeVerb("accept", testContext(repo.wt));
		expect(asked.ok ? "" : asked.error).toBe("awaiting_consent");
		expect(asked.message).toContain("This branch changes the gate: job `test` changed");
		const dry = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		expect(dry.message).toContain("This branch changes the gate: job `test` changed");
		let preview = "";
		const landed = await invokeVerb(
			"accept",
			testContext(repo.wt, {
				confirm: async (question, shown) => {
					preview = `${question} ${shown.message} ${(shown.hints ?? []).join(" ")}`;
					return true;
				},
			}),
		);
		expect(preview).toContain("This branch changes the gate: job `test` changed");
		expect(landed.ok).toBe(true);
		expect(landed.message).toContain("This branch changes the gate: job `test` changed");
	});

	test("file names are quoted in the consent summary: a newline cannot forge a line", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/evil\nScopes: none.ts", "x\n");
		await repo.wtCommit("evil name");
		const dry = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		const files = (dry.hints ?? []).find((hint) => hint.startsWith("Files ("));
		expect(files).toContain('"src/evil\\nScopes: none.ts"');
		expect((dry.hints ?? []).every((hint) => !hint.includes("\n"))).toBe(true);
	});

	test("a stale ref lock on the trunk is named as such (locked), never trunk_moved; the dry run predicts it", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		// The main checkout off the trunk: the landing is the ref's compare-and-swap alone.
		await repo.git("switch", "-q", "-c", "elsewhere");
		await writeFile(join(repo.root, ".git", "refs", "heads", "main.lock"), "");
		const before = await snapshot(repo);
		const dry = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		expect(dry.ok ? "" : dry.error).toBe("locked");
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("locked");
		expect(result.message).toContain("main.lock");
		expect(result.message).not.toContain("..");
		expect(await snapshot(repo)).toBe(before);
	});

	test("a symbolic-ref trunk: the dry run predicts the refusal", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		await repo.git("switch", "-q", "-c", "real");
		await repo.git("symbolic-ref", "refs/heads/main", "refs/heads/real");
		const dry = await invokeVerb("accept", testContext(repo.wt), { dry_run: true });
		expect(dry.ok ? "" : dry.error).toBe("no_trunk");
	});

	test("hints fit where accept ran: from the main checkout, update runs in the worktree and the retry repeats --target and --confirmed; over MCP it carries the path", async () => {
		const moved = await fixture();
		await moved.wtWrite("src/b.ts", "export const b = 2;\n");
		await moved.wtCommit("b");
		await moved.write("README.md", "# moved\n");
		await moved.commitAll("trunk moves");
		const behind = await invokeVerb("accept", testContext(moved.root), { confirmed: true, target: moved.branch });
		expect(behind.ok ? "" : behind.error).toBe("trunk_moved");
		expect(behind.hints?.[0]).toContain(`In the worktree at ${moved.wt}, run \`discern update\``);
		expect(behind.hints?.[0]).toContain("`discern accept --confirmed --target agent/x`");

		const dirty = await fixture();
		await dirty.wtWrite("src/b.ts", "export const b = 2;\n");
		await dirty.wtCommit("b");
		await dirty.write("README.md", "# local edit\n");
		const refused = await invokeVerb("accept", testContext(dirty.root), { confirmed: true, target: dirty.branch });
		expect(refused.ok ? "" : refused.error).toBe("dirty_worktree");
		expect(refused.hints?.join(" ")).toContain("`discern accept --confirmed --target agent/x`");
		const overMcp = await invokeVerb("accept", testContext(dirty.wt, { surface: "mcp" }), { confirmed: true });
		expect(overMcp.hints?.join(" ")).toContain(`\`discern_accept\` with \`${JSON.stringify({ confirmed: true, path: dirty.wt })}\``);
	});

	test("a file where the accept journal's folder goes: write_denied, nothing landed; counted nouns agree", async () => {
		const repo = await fixture(`${CONFIG}\n[acceptance]\npre_authorized = ["docs"]\n`);
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const asked = await invokeVerb("accept", testContext(repo.wt));
		expect(asked.message).toContain("1 changed file falls outside the pre-authorized scopes (src/b.ts)");
		await mkdir(join(repo.root, ".git", "discern"), { recursive: true });
		await writeFile(join(repo.root, ".git", "discern", "accept"), "in the way\n");
		const before = await repo.sha("main");
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("write_denied");
		expect(result.message).toContain("Nothing landed.");
		expect(await repo.sha("main")).toBe(before);
	});

	/** A landing whose accept was killed while the destroy command `leader` it started ran: the worktree and its resource are left. */
	async function killedDuringDestroy(leader: number): Promise<{ repo: WorktreeRepo; marker: string }> {
		// The destroy command is the one the committed discern.toml declares (the ledger names the resource only).
		const repo = await fixture(`${CONFIG}\n[worktree.resources.db]\ncreate = "true"\ndestroy = "echo x >> \\"$DISCERN_ROOT/../destroyed-x\\""\n`, {
			id: "x-1a2b3c",
		});
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const old = await repo.sha("main");
		await repo.git("merge", "-q", "--ff-only", head);
		const marker = join(dirname(repo.wt), "destroyed-x");
		await mkdir(join(repo.root, ".git", "discern", "resources"), { recursive: true });
		await writeFile(
			join(repo.root, ".git", "discern", "resources", "x-1a2b3c.json"),
			JSON.stringify({ version: 1, id: "x-1a2b3c", worktree: repo.wt, entries: [{ name: "db", state: "created" }] }),
		);
		// As accept writes it: sealed (a journal written by hand is none, see below).
		await writeJournal(
			join(repo.root, ".git"),
			journalOf(repo, head, old, {
				state: "landed",
				id: "x-1a2b3c",
				done: ["landed", "checkout_moved", "noted"],
				destroying: [{ pid: leader, started: processStart(leader) ?? "" }],
			}),
		);
		return { repo, marker };
	}

	test("a destroy an earlier (killed) accept started still runs: no second destroy beside it, then it finishes once it is gone", async () => {
		const sleeper = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
		const { repo, marker } = await killedDuringDestroy(sleeper.pid);
		try {
			const refused = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
			expect(refused.ok ? "" : refused.error).toBe("locked");
			expect(refused.message).toContain(`pid ${sleeper.pid}`);
			expect(existsSync(marker)).toBe(false);
			expect(existsSync(repo.wt)).toBe(true);
		} finally {
			sleeper.kill(9);
			await sleeper.exited;
		}
		const finished = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expect(finished.ok).toBe(true);
		expect(data(finished)).toMatchObject({ worktree_removed: true, resources: { destroyed: ["db"], failed: [] } });
		expect(await readFile(marker, "utf8")).toBe("x\n");
	});

	test("a destroy whose leader is a zombie while its group still runs has not ended: no second destroy beside it", async () => {
		// The leader starts a process of its own group, then exits; `sh` became a `sleep` that never reaps it.
		const parent = Bun.spawn(["sh", "-c", "setsid sh -c 'sleep 30 & exit 0' & echo $!; exec sleep 30"], { stdout: "pipe", stderr: "ignore" });
		const reader = parent.stdout.getReader();
		const leader = Number(new TextDecoder().decode((await reader.read()).value).trim());
		reader.releaseLock();
		try {
			const state = () => readFileSync(`/proc/${leader}/stat`, "utf8").split(") ")[1]?.[0];
			for (let tries = 0; tries < 100 && state() !== "Z"; tries++) await Bun.sleep(20);
			expect(state()).toBe("Z");
			const { repo, marker } = await killedDuringDestroy(leader);
			const refused = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
			expect(refused.ok ? "" : refused.error).toBe("locked");
			expect(existsSync(marker)).toBe(false);
		} finally {
			try {
				process.kill(-leader, "SIGKILL");
			} catch {
				// The group is gone already.
			}
			parent.kill(9);
			await parent.exited;
		}
	});

	test("a destroy an earlier accept started that is now a zombie (its parent never reaped it) has ended: accept finishes", async () => {
		// `sh` starts the leader, then becomes a `sleep` that never waits: once the leader exits it stays a zombie.
		const parent = Bun.spawn(["sh", "-c", "sleep 0.1 & echo $!; exec sleep 30"], { stdout: "pipe", stderr: "ignore" });
		const reader = parent.stdout.getReader();
		const leader = Number(new TextDecoder().decode((await reader.read()).value).trim());
		reader.releaseLock();
		try {
			const state = () => readFileSync(`/proc/${leader}/stat`, "utf8").split(") ")[1]?.[0];
			for (let tries = 0; tries < 100 && state() !== "Z"; tries++) await Bun.sleep(20);
			expect(state()).toBe("Z");
			const { repo, marker } = await killedDuringDestroy(leader);
			const finished = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
			expect(finished.ok).toBe(true);
			expect(data(finished)).toMatchObject({ worktree_removed: true, resources: { destroyed: ["db"], failed: [] } });
			expect(await readFile(marker, "utf8")).toBe("x\n");
		} finally {
			parent.kill(9);
			await parent.exited;
		}
	});
});

describe("accept: an interrupted landing", () => {
	/** A proven branch adding thousands of files: the main checkout's fast-forward writes them one by one, long enough to stop it halfway. */
	async function bulky(): Promise<{ repo: WorktreeRepo; head: string; old: string }> {
		const repo = await fixture(CONFIG, { id: "x-1a2b3c" });
		const line = `${"x".repeat(200)}\n`;
		for (let index = 0; index < 4000; index++) await repo.wtWrite(`bulk/${String(index).padStart(4, "0")}.txt`, line.repeat(4));
		await repo.wtWrite("src/a.ts", "export const a = 2;\n");
		await repo.wtCommit("many files");
		expect((await invokeVerb("done", testContext(repo.wt))).ok).toBe(true);
		return { repo, head: (await repo.wtGit("rev-parse", "HEAD")).trim(), old: await repo.sha("main") };
	}

	/** Wait until the landing has written its first file into the main checkout. */
	async function midLanding(repo: WorktreeRepo, running: () => boolean): Promise<void> {
		const started = Date.now();
		while (!existsSync(join(repo.root, "bulk")) && Date.now() - started < 60_000 && running()) await Bun.sleep(1);
		expect(existsSync(join(repo.root, "bulk"))).toBe(true);
	}

	/** The main checkout is exactly the trunk (index and files, nothing half-written, no lock), and the next accept lands or finishes it once. */
	async function consistentThenLands(repo: WorktreeRepo, head: string, old: string): Promise<void> {
		expect(existsSync(join(repo.root, ".git", "index.lock"))).toBe(false);
		const trunk = await repo.sha("main");
		expect([old, head]).toContain(trunk);
		expect((await repo.git("status", "--porcelain", "--untracked-files=all")).trim()).toBe("");
		expect((await repo.git("rev-parse", "HEAD")).trim()).toBe(trunk);
		expect(existsSync(join(repo.root, "bulk", "0000.txt"))).toBe(trunk === head);
		expect(await readFile(join(repo.root, "src/a.ts"), "utf8")).toBe(trunk === head ? "export const a = 2;\n" : "export const a = 1;\n");
		const next = await invokeVerb("accept", testContext(repo.root), { target: repo.branch, confirmed: true });
		expect(next.ok).toBe(true);
		expect(await repo.sha("main")).toBe(head);
		expect((await repo.git("status", "--porcelain", "--untracked-files=all")).trim()).toBe("");
		expect(data(next)).toMatchObject({ landed: true, worktree_removed: true });
		expect(await landings(repo)).toBe(1);
	}

	/** The built binary's accept from the main checkout, in its own process group (as a terminal's foreground job is), Ctrl-C'd once `ready` says so. */
	async function ctrlC(repo: WorktreeRepo, args: string[], ready: (running: () => boolean) => Promise<void>): Promise<{ code: number; stdout: string }> {
		const binary = await ensureBinary();
		const child = Bun.spawn([binary, "accept", "--target", repo.branch, ...args, "--json"], {
			cwd: repo.root,
			env: { ...process.env, NO_COLOR: "1" },
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
			detached: true,
		});
		const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
		await ready(() => child.exitCode === null);
		try {
			// The signal goes to the whole group, as a terminal sends it.
			process.kill(-child.pid, "SIGINT");
		} catch {
			// It ended first: what it left is judged all the same.
		}
		const code = await child.exited;
		const [stdout] = await output;
		return { code, stdout };
	}

	/** The built binary's accept, started as ctrlC starts it, its whole group SIGKILLed once the landing is under way; `alsoGit` kills the landing's git too. */
	async function killedMidLanding(repo: WorktreeRepo, head: string, alsoGit: boolean): Promise<void> {
		const binary = await ensureBinary();
		const child = Bun.spawn([binary, "accept", "--target", repo.branch, "--confirmed", "--json"], {
			cwd: repo.root,
			// git's progress shows at once, not after 2 s: a git whose output is discern's pipe writes to it mid-checkout.
			env: { ...process.env, NO_COLOR: "1", GIT_PROGRESS_DELAY: "0" },
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
			detached: true,
		});
		await midLanding(repo, () => child.exitCode === null);
		// The journal names the landing's git a moment after it started (until then a lock it left is named, not removed).
		const started = Date.now();
		while (alsoGit && !(await readJournal(join(repo.root, ".git"), repo.branch))?.landing_git && Date.now() - started < 10_000) await Bun.sleep(1);
		const merging = alsoGit ? await processesWithCommandLine(`--no-autostash ${head}`) : [];
		process.kill(-child.pid, "SIGKILL");
		for (const pid of merging) process.kill(pid, "SIGKILL");
		await child.exited;
		// The landing's git has a session of its own: it may still be writing.
		const killed = Date.now();
		while ((await processesWithCommandLine(`--no-autostash ${head}`)).length > 0 && Date.now() - killed < 60_000) await Bun.sleep(20);
	}

	test("SIGKILL to accept's process group during the fast-forward: git, writing to no pipe of discern's, finishes the landing; the next accept finishes it", async () => {
		const { repo, head, old } = await bulky();
		await killedMidLanding(repo, head, false);
		expect(await repo.sha("main")).toBe(head);
		await consistentThenLands(repo, head, old);
	}, 120_000);

	test("a landing killed outright with its git (SIGKILL to both): the next accept puts back what it wrote, then lands", async () => {
		const { repo, head, old } = await bulky();
		// A person's untracked and ignored files elsewhere in the checkout are never touched by the undo.
		await writeFile(join(repo.root, "notes.txt"), "mine\n");
		await killedMidLanding(repo, head, true);
		expect(await repo.sha("main")).toBe(old);
		expect(existsSync(join(repo.root, "bulk"))).toBe(true);
		const next = await invokeVerb("accept", testContext(repo.root), { target: repo.branch, confirmed: true });
		expect(next.message).not.toContain("would be overwritten");
		expect(next.ok).toBe(true);
		expect(await repo.sha("main")).toBe(head);
		expect((await repo.git("status", "--porcelain")).trim()).toBe("?? notes.txt");
		expect(await readFile(join(repo.root, "notes.txt"), "utf8")).toBe("mine\n");
		expect(await landings(repo)).toBe(1);
	}, 120_000);

	test("Ctrl-C (SIGINT to the process group) during the main checkout's fast-forward leaves it as it was or fully landed, and the next accept succeeds", async () => {
		const { repo, head, old } = await bulky();
		const { code, stdout } = await ctrlC(repo, ["--confirmed"], (running) => midLanding(repo, running));
		expect(code).toBe(130);
		expect(onlyJson(stdout).ok).toBe(false);
		await consistentThenLands(repo, head, old);
	}, 120_000);

	test("Ctrl-C while a resumed accept moves the main checkout's files after the trunk: they finish moving, and the next accept finishes", async () => {
		const { repo, head, old } = await bulky();
		// An earlier accept moved the trunk and was stopped before the checkout's files followed it.
		await repo.git("update-ref", "-m", "discern accept", "refs/heads/main", head, old);
		await writeJournal(join(repo.root, ".git"), journalOf(repo, head, old, { state: "landed", id: "x-1a2b3c", done: ["landed"] }));
		await ctrlC(repo, [], (running) => midLanding(repo, running));
		await consistentThenLands(repo, head, old);
	}, 120_000);

	test("Ctrl-C while accept removes the worktree never leaves half of it: it is removed whole (or kept whole)", async () => {
		const { repo, head, old } = await bulky();
		await repo.git("merge", "-q", "--ff-only", head);
		await writeJournal(
			join(repo.root, ".git"),
			journalOf(repo, head, old, { state: "landed", id: null, done: ["landed", "checkout_moved", "noted", "resources_destroyed"] }),
		);
		await ctrlC(repo, [], async (running) => {
			// git deletes the worktree's files one by one: the first one gone, it is under way.
			const started = Date.now();
			while (existsSync(join(repo.wt, "bulk", "0000.txt")) && Date.now() - started < 60_000 && running()) await Bun.sleep(1);
			expect(existsSync(join(repo.wt, "bulk", "0000.txt"))).toBe(false);
		});
		const listed = await repo.git("worktree", "list", "--porcelain");
		if (existsSync(repo.wt)) {
			expect(listed).toContain(repo.wt);
			expect((await repo.wtGit("status", "--porcelain", "--untracked-files=all")).trim()).toBe("");
		} else expect(listed).not.toContain(repo.wt);
		const next = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		if (existsSync(repo.wt) || (await readJournal(join(repo.root, ".git"), repo.branch))) expect(next.ok).toBe(true);
		expect(existsSync(repo.wt)).toBe(false);
		expect(await repo.sha("main")).toBe(head);
	}, 120_000);

	test("a signal that came before the trunk moved stops the landing whole: nothing lands, nothing is removed", async () => {
		const repo = await fixture(CONFIG, { id: "x-1a2b3c" });
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		expect((await invokeVerb("done", testContext(repo.wt))).ok).toBe(true);
		const before = await snapshot(repo);
		const stopped = new AbortController();
		stopped.abort("SIGINT");
		const result = await invokeVerb("accept", testContext(repo.root, { signal: stopped.signal }), { target: repo.branch, confirmed: true });
		expect(result.ok ? "" : result.error).toBe("interrupted");
		expect(result.message).toContain("Nothing landed");
		expect(await snapshot(repo)).toBe(before);
		expect(await readJournal(join(repo.root, ".git"), repo.branch)).toBeNull();
	});

	test("a fast-forward git killed halfway (SIGKILL: no clean-up of its own) is undone: the files it wrote go, the trunk's come back, its index lock goes", async () => {
		const { repo, head, old } = await bulky();
		let running = true;
		const landing = invokeVerb("accept", testContext(repo.root), { target: repo.branch, confirmed: true }).finally(() => {
			running = false;
		});
		await midLanding(repo, () => running);
		const merging = await processesWithCommandLine(`--no-autostash ${head}`);
		expect(merging.length).toBe(1);
		for (const pid of merging) process.kill(pid, "SIGKILL");
		// Killed outright, git leaves its index lock behind.
		expect(existsSync(join(repo.root, ".git", "index.lock"))).toBe(true);
		const result = await landing;
		expect(result.ok ? "" : result.error).toBe("interrupted");
		expect(result.message).toContain("nothing landed");
		expect(result.message).toContain("put back");
		expect(await repo.sha("main")).toBe(old);
		await consistentThenLands(repo, head, old);
	}, 120_000);
});

describe("accept: a git that fails is git failing", () => {
	test("git failing (or killed) while accept lists the hidden files of the checkout on the trunk is said as such, never as files git is told to ignore", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		expect((await invokeVerb("done", testContext(repo.wt))).ok).toBe(true);
		// A git on the binary's PATH whose \`ls-files -v\` (the hidden-files listing) dies as a killed git would; every other call is git's own.
		const bin = await makeTempDir("discern-git-");
		made.push(bin);
		const real = Bun.which("git") ?? "/usr/bin/git";
		await writeFile(join(bin, "git"), `#!/bin/sh\ncase " $* " in *" ls-files -v "*) kill -9 $$ ;; esac\nexec '${real}' "$@"\n`);
		await chmod(join(bin, "git"), 0o755);
		const before = await snapshot(repo);
		const ran = await runDiscern(["accept", "--target", repo.branch, "--confirmed", "--json"], {
			cwd: repo.root,
			env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
		});
		const result = onlyJson(ran.stdout);
		expect(result.ok).toBe(false);
		expect(String(result.message)).not.toContain("told to ignore changes");
		expect(String(result.message)).toContain("git could not list the tracked files");
		expect(await snapshot(repo)).toBe(before);
	});
});

describe("accept: what the worktree's folder holds beyond its commits", () => {
	/** A worktree made by `start` (which copies the main checkout's ignored `.env`), with a committed change to land. */
	async function started(): Promise<{ root: string; wt: string; id: string; branch: string; git: (...args: string[]) => Promise<string> }> {
		const repo = await makeRepo({
			config: `${CONFIG}\n[acceptance]\npre_authorized = ["app"]\n`,
			files: { "README.md": "# fixture\n", "src/a.ts": "export const a = 1;\n", ".gitignore": ".env\n*.local\nnode_modules/\nscratch/\n" },
		});
		made.push(repo.root, `${repo.root}.worktrees`);
		await repo.write(".env", "API_URL=http://localhost\n");
		const result = await invokeVerb("start", testContext(repo.root), { title: "env work" });
		expect(result.ok).toBe(true);
		const { path: wt, id, branch } = result.data as StartData;
		await writeFile(join(wt, "src/b.ts"), "export const b = 2;\n");
		await runGitIn(wt, "add", "-A");
		await runGitIn(wt, "commit", "-q", "-m", "b");
		return { root: repo.root, wt, id, branch, git: repo.git };
	}

	test("an env file start copied and the person edited since keeps the worktree (pre-authorized too), named, with its branch; the trunk lands", async () => {
		const { root, wt, id, branch, git } = await started();
		await writeFile(join(wt, ".env"), "API_URL=http://localhost\nAPI_KEY=only-here\n");
		await writeFile(join(wt, "notes.local"), "my notes\n");
		const head = (await runGitIn(wt, "rev-parse", "HEAD")).trim();
		const preview = await invokeVerb("accept", testContext(wt), { dry_run: true });
		expect(preview.plan?.find((item) => item.kind === "cleanup")).toMatchObject({ disposition: "skip" });
		// Nobody is asked: every change is in a pre-authorized scope.
		const result = await invokeVerb("accept", testContext(wt));
		expect(result.ok).toBe(true);
		expect((await git("rev-parse", "main")).trim()).toBe(head);
		expect(data(result)).toMatchObject({ landed: true, consent: "pre_authorized", worktree_removed: false, branch_deleted: false });
		expect(data(result).worktree_files.edited_env).toEqual([".env"]);
		expect(data(result).worktree_files.ignored).toEqual([".env", "notes.local"]);
		expect(result.message).toContain("was kept");
		expect(result.message).toContain(".env");
		expect(result.hints?.join("\n")).toContain(`discern worktree drop ${id}`);
		expect(await readFile(join(wt, ".env"), "utf8")).toContain("API_KEY=only-here");
		expect(await readFile(join(wt, "notes.local"), "utf8")).toBe("my notes\n");
		expect((await git("branch", "--list", branch)).trim()).not.toBe("");
		// The hint's command removes it once the person saved what they need (into the main checkout's copy).
		await writeFile(join(root, ".env"), await readFile(join(wt, ".env")));
		const dropped = await invokeVerb("worktree drop", testContext(root), { id });
		expect(dropped.ok).toBe(true);
		expect(existsSync(wt)).toBe(false);
	});

	/** A repository made inside the worktree's ignored `scratch/`, with a commit that exists nowhere else. */
	async function scratchRepository(wt: string): Promise<string> {
		const scratch = join(wt, "scratch");
		await mkdir(scratch, { recursive: true });
		await runGitIn(scratch, "init", "-q");
		await writeFile(join(scratch, "idea.txt"), "only here\n");
		await runGitIn(scratch, "add", "-A");
		await runGitIn(scratch, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "only here");
		return (await runGitIn(scratch, "rev-parse", "HEAD")).trim();
	}

	test("an ignored nested repository holding a commit only it has keeps the worktree, named, as drop and prune keep it (--confirmed from the main checkout)", async () => {
		const { root, wt, id, branch, git } = await started();
		const only = await scratchRepository(wt);
		const head = (await runGitIn(wt, "rev-parse", "HEAD")).trim();
		const preview = await invokeVerb("accept", testContext(root), { target: id, dry_run: true });
		expect(preview.plan?.find((item) => item.kind === "cleanup")).toMatchObject({ disposition: "skip" });
		expect(preview.plan?.find((item) => item.kind === "cleanup")?.note).toContain("scratch");
		const result = await invokeVerb("accept", testContext(root), { target: id, confirmed: true });
		expectValidEnvelope("accept", result);
		expect(result.ok).toBe(true);
		expect((await git("rev-parse", "main")).trim()).toBe(head);
		expect(data(result)).toMatchObject({ landed: true, worktree_removed: false, branch_deleted: false });
		expect(data(result).worktree_files.nested_repositories).toMatchObject([
			{ path: "scratch", kind: "ignored", loses: ["1 commit no remote-tracking branch holds"] },
		]);
		expect(result.message).toContain("was kept");
		expect(result.message).toContain("scratch");
		expect(result.message).not.toContain("Deleted with the worktree");
		expect(result.hints?.join("\n")).toContain("mv -n");
		expect(result.hints?.join("\n")).toContain(`discern worktree drop ${id}`);
		expect((await runGitIn(join(wt, "scratch"), "rev-parse", "HEAD")).trim()).toBe(only);
		expect((await git("branch", "--list", branch)).trim()).not.toBe("");
	});

	test("an ignored nested repository holding a commit only it has keeps the worktree on a pre-authorized accept too", async () => {
		const { wt, git } = await started();
		const only = await scratchRepository(wt);
		const result = await invokeVerb("accept", testContext(wt));
		expectValidEnvelope("accept", result);
		expect(result.ok).toBe(true);
		expect(data(result)).toMatchObject({ landed: true, consent: "pre_authorized", worktree_removed: false });
		expect(result.message).toContain("scratch");
		expect((await runGitIn(join(wt, "scratch"), "rev-parse", "HEAD")).trim()).toBe(only);
		expect((await git("worktree", "list")).includes(wt)).toBe(true);
	});

	test("an untracked file in the worktree stops its removal, and the result names it", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const old = await repo.sha("main");
		await repo.git("merge", "-q", "--ff-only", head);
		await writeJournal(
			join(repo.root, ".git"),
			journalOf(repo, head, old, { state: "landed", id: null, done: ["landed", "checkout_moved", "noted", "resources_destroyed"] }),
		);
		await repo.wtWrite("draft.txt", "not committed\n");
		const result = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expect(result.ok ? "" : result.error).toBe("partial_acceptance");
		expect(result.message).toContain("draft.txt");
		expect(data(result).worktree_files).toMatchObject({ untracked: ["draft.txt"], untracked_count: 1 });
		expect(await readFile(join(repo.wt, "draft.txt"), "utf8")).toBe("not committed\n");
	});

	test("ignored files that go with the worktree are counted and named in the result; an env copy left as copied does not keep it", async () => {
		const { wt } = await started();
		await writeFile(join(wt, "notes.local"), "my notes\n");
		await mkdir(join(wt, "node_modules", "pkg"), { recursive: true });
		await writeFile(join(wt, "node_modules", "pkg", "index.js"), "\n");
		const result = await invokeVerb("accept", testContext(wt), { confirmed: true });
		expect(result.ok).toBe(true);
		expect(data(result)).toMatchObject({ worktree_removed: true, branch_deleted: true });
		expect(data(result).worktree_files).toEqual({
			ignored: [".env", "node_modules/", "notes.local"],
			ignored_count: 3,
			untracked: [],
			untracked_count: 0,
			edited_env: [],
			nested_repositories: [],
		});
		expect(result.message).toContain("3 ignored files or folders");
		expect(result.message).toContain("notes.local");
		expect(existsSync(wt)).toBe(false);
	});
});

describe("accept: refs and checkouts an agent can rig", () => {
	/** A landing left partial (the worktree locked by git), then unlocked: the resume is what these tests rig. */
	async function partial(repo: WorktreeRepo): Promise<string> {
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		await repo.git("worktree", "lock", repo.wt);
		const first = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(first.ok ? "" : first.error).toBe("partial_acceptance");
		await repo.git("worktree", "unlock", repo.wt);
		return head;
	}

	test("a resumed accept never deletes the trunk through a branch made a symbolic ref to it", async () => {
		const repo = await fixture();
		const head = await partial(repo);
		await repo.git("symbolic-ref", `refs/heads/${repo.branch}`, "refs/heads/main");
		const result = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expect(await repo.sha("main")).toBe(head);
		expect((await repo.git("reflog", "show", "--format=%gs", "refs/heads/main")).trim()).not.toBe("");
		expect(data(result).branch_deleted).toBe(false);
		expect(JSON.stringify(result)).toContain("symbolic ref");
	});

	test("--target naming one worktree's task id and another's branch is ambiguous: refused, listing both, nothing lands", async () => {
		const repo = await fixture(CONFIG, { id: "fix-1a2b3c" });
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const other = `${repo.wt}-other`;
		made.push(other);
		await repo.git("worktree", "add", "-q", "-b", "fix-1a2b3c", other);
		await runGitIn(other, "commit", "-q", "--allow-empty", "-m", "unproven");
		const before = await snapshot(repo);
		const result = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: "fix-1a2b3c" });
		expect(result.ok ? "" : result.error).toBe("invalid_arguments");
		expect(result.message).toContain(repo.wt);
		expect(result.message).toContain(other);
		expect(result.message).toContain("task id");
		expect(result.message).toContain("branch");
		expect(await snapshot(repo)).toBe(before);
		// Its path names it alone.
		const landed = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: repo.wt });
		expect(landed.ok).toBe(true);
		expect(await repo.sha("main")).toBe(head);
		expect(await repo.sha("main")).not.toBe(await repo.sha("fix-1a2b3c"));
	});

	test("--target takes a unique prefix of a task id or branch; a prefix two share is refused, listing both", async () => {
		const repo = await fixture(CONFIG, { id: "reject-empty-template-input-e9a8c4" });
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const other = `${repo.wt}-other`;
		made.push(other);
		await repo.git("worktree", "add", "-q", "-b", "reject-other", other);
		const before = await snapshot(repo);
		const shared = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: "reject" });
		expect(shared.ok ? "" : shared.error).toBe("invalid_arguments");
		expect(shared.message).toContain(repo.wt);
		expect(shared.message).toContain(other);
		expect(shared.message).toContain("a prefix of its");
		expect(await snapshot(repo)).toBe(before);
		const landed = await invokeVerb("accept", testContext(repo.root), { confirmed: true, target: "reject-empty" });
		expect(landed.ok).toBe(true);
		expect(await repo.sha("main")).toBe(head);
	});

	test("a notes ref made a symbolic ref to the trunk, or pointed at a branch tip: refused before landing (dry run too); a resume never writes through it", async () => {
		for (const rig of [
			["symbolic-ref", "refs/notes/discern", "refs/heads/main"],
			["update-ref", "refs/notes/discern", "refs/heads/main"],
		]) {
			const repo = await fixture();
			await repo.wtWrite("src/b.ts", "export const b = 2;\n");
			await repo.wtCommit("b");
			await repo.git(...rig);
			const before = await snapshot(repo);
			const dry = await invokeVerb("accept", testContext(repo.wt), { confirmed: true, dry_run: true });
			expect(dry.ok ? "" : dry.error).toBe("write_denied");
			const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
			expect(result.ok ? "" : result.error).toBe("write_denied");
			expect(result.message).toContain("refs/notes/discern");
			expect(await snapshot(repo)).toBe(before);
		}
		// A landing interrupted before its note; the notes ref is rigged before it resumes.
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
		const old = await repo.sha("main");
		await repo.git("merge", "-q", "--ff-only", head);
		// As accept writes it: sealed (a journal written by hand is none, see below).
		await writeJournal(join(repo.root, ".git"), journalOf(repo, head, old, { state: "landed", id: null, done: ["landed", "checkout_moved"] }));
		await repo.git("symbolic-ref", "refs/notes/discern", "refs/heads/main");
		const resumed = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expect(resumed.ok ? "" : resumed.error).toBe("partial_acceptance");
		expect(resumed.message).toContain("symbolic ref");
		expect(await repo.sha("main")).toBe(head);
	});

	test("an fsmonitor hook that reports nothing changed cannot hide the person's edit on the trunk checkout: refused, the edit kept", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/a.ts", "export const a = 2;\n");
		await repo.wtCommit("a");
		const hook = join(repo.cleanupDirs[1] ?? repo.root, "fsmonitor.sh");
		await writeFile(hook, "#!/bin/sh\nprintf 'token\\0'\n", { mode: 0o755 });
		await repo.git("config", "core.fsmonitor", hook);
		await repo.git("status", "--porcelain");
		await Bun.sleep(1100);
		await repo.git("status", "--porcelain");
		await repo.write("src/a.ts", "the person's edit\n");
		expect((await repo.git("status", "--porcelain")).trim()).toBe("");
		const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("dirty_worktree");
		expect(await readFile(join(repo.root, "src/a.ts"), "utf8")).toBe("the person's edit\n");
	});

	test("a resumed accept never removes a worktree whose edit an fsmonitor hook hides", async () => {
		const repo = await fixture();
		await partial(repo);
		const hook = join(repo.cleanupDirs[1] ?? repo.root, "fsmonitor.sh");
		await writeFile(hook, "#!/bin/sh\nprintf 'token\\0'\n", { mode: 0o755 });
		await repo.git("config", "core.fsmonitor", hook);
		await repo.wtGit("status", "--porcelain");
		await Bun.sleep(1100);
		await repo.wtGit("status", "--porcelain");
		await repo.wtWrite("src/b.ts", "an edit after the landing\n");
		expect((await repo.wtGit("status", "--porcelain")).trim()).toBe("");
		const result = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expect(result.ok ? "" : result.error).toBe("partial_acceptance");
		expect(await readFile(join(repo.wt, "src/b.ts"), "utf8")).toBe("an edit after the landing\n");
	});

	test("no git hook runs while accept writes refs: a reference-transaction hook can neither abort nor see the trunk's move, the note or the branch deletion", async () => {
		for (const onTrunk of [false, true]) {
			const repo = await fixture();
			if (!onTrunk) await repo.git("switch", "-q", "-c", "elsewhere");
			await repo.wtWrite("src/b.ts", "export const b = 2;\n");
			await repo.wtCommit("b");
			const head = (await repo.wtGit("rev-parse", "HEAD")).trim();
			const marker = join(repo.cleanupDirs[1] ?? repo.root, "hook-ran");
			const hooks = join(repo.root, ".git", "hooks");
			await mkdir(hooks, { recursive: true });
			await writeFile(join(hooks, "reference-transaction"), `#!/bin/sh\necho "$1" >> '${marker}'\nexit 1\n`, { mode: 0o755 });
			const result = await invokeVerb("accept", testContext(repo.wt), { confirmed: true });
			expect(result.ok).toBe(true);
			expect(data(result)).toMatchObject({ sha: head, note_ref: "refs/notes/discern", branch_deleted: true });
			expect(await repo.sha("main")).toBe(head);
			expect(existsSync(marker)).toBe(false);
		}
	});

	test("a resumed accept never removes another worktree the journal's folder was swapped for (a symlink to it)", async () => {
		const repo = await fixture();
		await partial(repo);
		const other = `${repo.wt}-y`;
		made.push(other, `${repo.wt}-moved`);
		await repo.git("worktree", "add", "-q", "-b", "agent/y", other);
		// Its worktree gone from git's list, the folder replaced by a symlink to a clean worktree of another branch.
		await rename(repo.wt, `${repo.wt}-moved`);
		await repo.git("worktree", "prune");
		await symlink(other, repo.wt);
		const result = await invokeVerb("accept", testContext(repo.root), { target: repo.branch });
		expect(existsSync(join(other, "README.md"))).toBe(true);
		expect(await repo.git("worktree", "list", "--porcelain")).toContain("branch refs/heads/agent/y");
		expect(JSON.stringify(result)).not.toContain("agent/y");
		// Still listed but swapped: refused, nothing removed.
		const again = await fixture();
		await partial(again);
		const other2 = `${again.wt}-y`;
		made.push(other2, `${again.wt}-moved`);
		await again.git("worktree", "add", "-q", "-b", "agent/y", other2);
		await rename(again.wt, `${again.wt}-moved`);
		await symlink(other2, again.wt);
		const refused = await invokeVerb("accept", testContext(again.root), { target: again.branch });
		expect(refused.ok).toBe(false);
		expect(existsSync(join(other2, "README.md"))).toBe(true);
		expect(existsSync(join(`${again.wt}-moved`, "src/b.ts"))).toBe(true);
	});
});

describe("accept: an undo moves what it takes away into the kept folder, never deletes it", () => {
	/** The files under `<repo>/.git/discern/kept/`, by path under their undo's folder, with their content. */
	async function keptFiles(root: string): Promise<Record<string, string>> {
		const top = join(root, ".git", "discern", "kept");
		const found: Record<string, string> = {};
		if (!existsSync(top)) return found;
		for (const stamp of await readdir(top))
			for (const path of await readdir(join(top, stamp), { recursive: true })) {
				const full = join(top, stamp, path);
				if ((await lstat(full)).isFile()) found[path] = await readFile(full, "utf8");
			}
		return found;
	}

	test("a journal an agent forged with the seal key read from .git never deletes the person's .env: it is kept, and named", async () => {
		const repo = await makeRepo({ config: CONFIG, files: { "README.md": "# fixture\n", ".gitignore": ".env\n" } });
		made.push(repo.root, `${repo.root}.worktrees`);
		await repo.write(".env", "API_KEY=the-persons-own\n");
		const started = await invokeVerb("start", testContext(repo.root), { title: "env work" });
		expect(started.ok).toBe(true);
		const { path: wt, branch } = started.data as StartData;
		// The agent commits the .env start copied (so it knows its bytes) and forges a journal of a landing killed halfway.
		await runGitIn(wt, "add", "-f", ".env");
		await runGitIn(wt, "commit", "-q", "-m", "env");
		expect((await invokeVerb("done", testContext(wt))).ok).toBe(true);
		const head = (await runGitIn(wt, "rev-parse", "HEAD")).trim();
		const old = (await repo.git("rev-parse", "main")).trim();
		const journal = {
			...journalOf({ branch, wt, root: repo.root } as WorktreeRepo, head, old, { state: "landing", id: null, done: [] }),
			path: wt,
			landing_git: { pid: 999_999, started: "0" },
			time: new Date().toISOString(),
		};
		const key = Buffer.from((await readFile(join(repo.root, ".git", "discern", "proof-key"), "utf8")).trim(), "hex");
		const name = `${encodeURIComponent(branch).replaceAll(".", "%2E")}.json`;
		const seal = createHmac("sha256", key)
			.update(`accept-journal\n${name}\n${JSON.stringify(journal)}`)
			.digest("hex");
		await mkdir(join(repo.root, ".git", "discern", "accept"), { recursive: true });
		await writeFile(join(repo.root, ".git", "discern", "accept", name), JSON.stringify({ ...journal, seal }));
		// The forgery holds: accept reads it as its own journal.
		expect(await readJournal(join(repo.root, ".git"), branch)).not.toBeNull();
		const result = await invokeVerb("accept", testContext(repo.root), { target: branch });
		expectValidEnvelope("accept", result);
		expect((await repo.git("rev-parse", "main")).trim()).toBe(old);
		const inPlace = existsSync(join(repo.root, ".env")) ? await readFile(join(repo.root, ".env"), "utf8") : null;
		const kept = await keptFiles(repo.root);
		expect(inPlace ?? kept[".env"]).toBe("API_KEY=the-persons-own\n");
		if (inPlace === null) {
			expect(result.message).toContain("moved, not deleted");
			expect(result.message).toContain(join(repo.root, ".git", "discern", "kept"));
		}
	});

	test("a person's file written at a path the landing adds while git runs survives the undo of a failed fast-forward", async () => {
		const repo = await fixture();
		await repo.wtWrite("src/b.ts", "export const b = 2;\n");
		await repo.wtCommit("b");
		expect((await invokeVerb("done", testContext(repo.wt))).ok).toBe(true);
		const old = await repo.sha("main");
		// A git whose fast-forward fails once the person has written src/b.ts in the main checkout (the race, made certain).
		const bin = await makeTempDir("discern-git-");
		made.push(bin);
		const real = Bun.which("git") ?? "/usr/bin/git";
		await writeFile(
			join(bin, "git"),
			`#!/bin/sh\ncase " $* " in *" merge "*"--ff-only"*) printf 'the persons own\\n' > src/b.ts; echo 'error: simulated' >&2; exit 1 ;; esac\nexec '${real}' "$@"\n`,
		);
		await chmod(join(bin, "git"), 0o755);
		const ran = await runDiscern(["accept", "--target", repo.branch, "--confirmed", "--json"], {
			cwd: repo.root,
			env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
		});
		const result = onlyJson(ran.stdout);
		expect(result.ok).toBe(false);
		expect(await repo.sha("main")).toBe(old);
		const inPlace = existsSync(join(repo.root, "src/b.ts")) ? await readFile(join(repo.root, "src/b.ts"), "utf8") : null;
		const kept = await keptFiles(repo.root);
		expect(inPlace ?? kept["src/b.ts"]).toBe("the persons own\n");
		if (inPlace === null) {
			expect(String(result.message)).toContain("moved, not deleted");
			expect(String(result.message)).toContain(join(repo.root, ".git", "discern", "kept"));
		}
	});
});
