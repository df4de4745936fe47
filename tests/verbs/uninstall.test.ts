import { afterAll, describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { declaredPaths } from "../../src/agents/providers.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, makeTempDir, runGit, type TestRepo } from "../helpers/repo.ts";
import { pathWithDiscern } from "../helpers/stub-path.ts";

const cleanup: string[] = [];
afterAll(async () => {
	await Promise.all(cleanup.map((dir) => rm(dir, { recursive: true, force: true })));
});

type Repo = TestRepo & { env: Record<string, string | undefined> };

async function repo(options: Parameters<typeof makeRepo>[0]): Promise<Repo> {
	const made = await makeRepo(options);
	cleanup.push(made.root);
	return { ...made, env: { PATH: await pathWithDiscern(cleanup) } };
}

const run = (r: Repo, verb: "setup" | "refresh" | "uninstall", input: Record<string, unknown> = {}, confirm?: (question: string) => Promise<boolean>) =>
	invokeVerb(verb, r.ctx({ env: r.env, ...(confirm ? { confirm } : {}) }), input);
const files = (result: AnyResult) => (result.data as { files: { path: string; action: string; kind: string }[] }).files;
const actions = (result: AnyResult) => Object.fromEntries(files(result).map((file) => [file.path, file.action]));
const refreshActions = (result: AnyResult) =>
	Object.fromEntries((result.data as { files: { path: string; action: string }[] }).files.map((file) => [file.path, file.action]));

/** Every file of the checkout (not .git) with its bytes. */
async function snapshot(root: string): Promise<Map<string, string>> {
	const found = new Map<string, string>();
	const walk = async (dir: string) => {
		for (const entry of await readdir(dir, { withFileTypes: true })) {
			const full = join(dir, entry.name);
			if (entry.isDirectory()) {
				if (entry.name !== ".git") await walk(full);
			} else found.set(relative(root, full), await readFile(full, "latin1"));
		}
	};
	await walk(root);
	return found;
}

/** Every folder of the checkout (not .git). */
async function folders(root: string): Promise<string[]> {
	const found: string[] = [];
	const walk = async (dir: string) => {
		for (const entry of await readdir(dir, { withFileTypes: true })) {
			if (!entry.isDirectory() || entry.name === ".git") continue;
			found.push(relative(root, join(dir, entry.name)));
			await walk(join(dir, entry.name));
		}
	};
	await walk(root);
	return found.sort();
}

const AGENTS = "claude_code,codex,cursor,gemini,copilot";

/** A repository that already has its own agent files: other servers, comments, odd layout, a hand-written CLAUDE.md. */
const FIXTURE = {
	"README.md": "# fixture\n",
	"CLAUDE.md": "# How we work\n\nRun the tests before you push.\n",
	".mcp.json":
		'{\n   // the team\'s servers\n   "mcpServers": {\n      "other": { "command": "other-server", "args": ["--x"] }, // keep me\n   },\n   "extra": [1, 2,],\n}\n',
	".vscode/mcp.json":
		'// VS Code\n{\n\t"servers": {\n\t\t"github": {\n\t\t\t"type": "http",\n\t\t\t"url": "https://example.com/mcp", /* inline */\n\t\t},\n\t},\n\t"inputs": []\n}\n',
	".vscode/settings.json": '{ "editor.tabSize": 2 }\n',
	".codex/config.toml": '# Codex settings\nmodel = "o3" # the model\n\n[mcp_servers.other]\ncommand = "other"   # aligned\nargs = []\n',
	".gemini/settings.json": '{\n  "theme": "Dracula"\n}\n',
	".claude/settings.json": '{\n  "permissions": { "allow": ["Bash(ls)"] }\n}\n',
};

describe("uninstall", () => {
	test("round trip: setup + refresh, then uninstall --yes leaves every pre-existing file byte-identical and no discern file behind", async () => {
		const r = await repo({ files: FIXTURE });
		const original = await snapshot(r.root);
		const originalFolders = await folders(r.root);

		const setup = await run(r, "setup", { confirmed: true, agents: AGENTS });
		expect(setup.ok).toBe(true);
		// refresh refuses a hand-written CLAUDE.md; fold it into [instructions].sources the way its hint says (unless setup did).
		let config = await readFile(join(r.root, "discern.toml"), "utf8");
		let parsed = parseConfig(config);
		if (!parsed.ok) throw new Error("setup wrote an invalid discern.toml");
		if (parsed.config.instructions.sources.length === 0) {
			await r.git("mv", "CLAUDE.md", "docs/agent-instructions.md");
			expect(config).not.toContain("[instructions]");
			config = `${config}\n[instructions]\nsources = ["docs/agent-instructions.md"]\n`;
			await writeFile(join(r.root, "discern.toml"), config);
			parsed = parseConfig(config);
			if (!parsed.ok) throw new Error("the folded discern.toml is invalid");
		}
		const sources = parsed.config.instructions.sources;
		expect(sources.length).toBe(1);
		const source = sources[0] ?? "";
		expect(await readFile(join(r.root, source), "utf8")).toBe(FIXTURE["CLAUDE.md"]);

		const refresh = await run(r, "refresh");
		expect(refresh.ok).toBe(true);
		expect(await readFile(join(r.root, "CLAUDE.md"), "utf8")).toBe("@AGENTS.md\n");
		// Some runtime state, as gate runs leave it, and a record that stays.
		const state = join(r.root, ".git", "discern");
		await mkdir(join(state, "runs", "2026-01-01-done-1"), { recursive: true });
		await writeFile(join(state, "runs", "2026-01-01-done-1", "test.log"), "ok\n");
		await writeFile(join(state, "proof.json"), "{}\n");
		await writeFile(join(state, "proof-key"), `${"0".repeat(64)}\n`);
		await mkdir(join(state, "accept"), { recursive: true });
		await writeFile(join(state, "accept", "agent%2Fx.json"), "{}\n");

		const uninstall = await run(r, "uninstall", { yes: true });
		expect(uninstall.ok).toBe(true);
		expect((uninstall.data as { removed: boolean }).removed).toBe(true);
		expect(actions(uninstall)).toMatchObject({
			"AGENTS.md": "delete",
			"CLAUDE.md": "delete",
			"GEMINI.md": "delete",
			".mcp.json": "strip",
			".claude/settings.json": "strip",
			".codex/config.toml": "strip",
			".cursor/mcp.json": "delete",
			".gemini/settings.json": "strip",
			".vscode/mcp.json": "strip",
			".git/discern/runs": "delete",
			".git/discern/proof.json": "delete",
			".git/discern/proof-key": "delete",
			".git/discern/accept": "keep",
			".git/discern/logbook": "keep",
			"discern.toml": "keep",
			// Setup's fold of the hand-written CLAUDE.md goes back to its name.
			[source]: "move",
			"docs/map/": "keep",
		});

		const after = await snapshot(r.root);
		// Every pre-existing file is byte for byte what it was, CLAUDE.md included (moved back from setup's fold).
		for (const [path, bytes] of original) expect({ path, bytes: after.get(path) }).toEqual({ path, bytes });
		// Nothing else is left but what setup wrote on purpose (discern.toml, the map skeleton).
		const added = [...after.keys()].filter((path) => !original.has(path)).sort();
		expect(added).toEqual(["discern.toml", "docs/map/README.md"].sort());
		expect(after.has(source)).toBe(false);
		// The folders discern made (.cursor, the fold's) are gone; the person's are all there.
		expect(await folders(r.root)).toEqual([...new Set([...originalFolders, "docs", "docs/map"])].sort());
		// Under the git dir: the run history and the accept journals only.
		expect((await readdir(state)).sort()).toEqual(["accept", "logbook"]);
		expect(await readFile(join(state, "accept", "agent%2Fx.json"), "utf8")).toBe("{}\n");
	});

	test("write surface: a full setup + refresh touches only the paths the registry declares (and setup's own two)", async () => {
		const r = await repo({ files: { "README.md": "# fixture\n", ".mcp.json": '{ "mcpServers": { "x": { "command": "x" } } }\n' } });
		const before = await snapshot(r.root);
		expect((await run(r, "setup", { confirmed: true, agents: AGENTS })).ok).toBe(true);
		const refresh = await run(r, "refresh");
		expect(refresh.ok).toBe(true);
		const after = await snapshot(r.root);
		const touched = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort();
		const allowed = new Set([...declaredPaths(), "discern.toml", "docs/map/README.md"]);
		expect(touched.filter((path) => !allowed.has(path))).toEqual([]);
		// And every declared path was written: setup ran refresh, which wired all five agents.
		expect(touched).toEqual([...allowed].sort());
	});

	test("idempotence: a second refresh reports every file unchanged and changes no mtime", async () => {
		const r = await repo({ files: FIXTURE });
		await rm(join(r.root, "CLAUDE.md"));
		expect((await run(r, "setup", { confirmed: true, agents: AGENTS })).ok).toBe(true);
		const paths = declaredPaths();
		const mtimes = async () => Promise.all(paths.map(async (path) => ({ path, mtime: (await stat(join(r.root, path))).mtimeMs })));
		const before = await mtimes();
		await Bun.sleep(20);
		const again = await run(r, "refresh");
		expect(again.ok).toBe(true);
		expect(Object.values(refreshActions(again)).every((action) => action === "unchanged")).toBe(true);
		expect(await mtimes()).toEqual(before);
	});

	test("a file discern created and someone else added to keeps what they added", async () => {
		const r = await repo({ config: '[project]\nagents = ["cursor", "codex"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		const cursor = JSON.parse(await readFile(join(r.root, ".cursor/mcp.json"), "utf8"));
		cursor.mcpServers.mine = { command: "mine" };
		await writeFile(join(r.root, ".cursor/mcp.json"), `${JSON.stringify(cursor, null, 2)}\n`);
		await writeFile(
			join(r.root, ".codex/config.toml"),
			`${await readFile(join(r.root, ".codex/config.toml"), "utf8")}\n# mine\n[profiles.fast]\nmodel = "o4-mini"\n`,
		);
		const result = await run(r, "uninstall", { yes: true });
		expect(result.ok).toBe(true);
		expect(actions(result)).toMatchObject({ ".cursor/mcp.json": "strip", ".codex/config.toml": "strip", "AGENTS.md": "delete" });
		expect(JSON.parse(await readFile(join(r.root, ".cursor/mcp.json"), "utf8"))).toEqual({ mcpServers: { mine: { command: "mine" } } });
		expect(await readFile(join(r.root, ".codex/config.toml"), "utf8")).toBe('\n# mine\n[profiles.fast]\nmodel = "o4-mini"\n');
	});

	test("a person's own SessionStart hooks stay, byte for byte", async () => {
		const settings =
			'{\n  "hooks": {\n    "SessionStart": [\n      { "matcher": "resume", "hooks": [{ "type": "command", "command": "echo hi" }] }\n    ]\n  }\n}\n';
		const r = await repo({ config: '[project]\nagents = ["claude_code"]\n[jobs]\ntest = "true"\n', files: { ".claude/settings.json": settings } });
		expect((await run(r, "refresh")).ok).toBe(true);
		expect(await readFile(join(r.root, ".claude/settings.json"), "utf8")).toContain("worktree ensure");
		const result = await run(r, "uninstall", { yes: true });
		expect(actions(result)).toMatchObject({ ".claude/settings.json": "strip" });
		expect(await readFile(join(r.root, ".claude/settings.json"), "utf8")).toBe(settings);
	});

	test("a person's hook that mentions `worktree ensure` is not discern's: refresh and uninstall leave it, and its file", async () => {
		const settings = JSON.stringify(
			{ hooks: { SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "just worktree ensure && echo ready" }] }] } },
			null,
			2,
		);
		const r = await repo({ config: '[project]\nagents = ["claude_code"]\n[jobs]\ntest = "true"\n', files: { ".claude/settings.json": settings } });
		expect((await run(r, "refresh")).ok).toBe(true);
		expect(await readFile(join(r.root, ".claude/settings.json"), "utf8")).toContain("just worktree ensure && echo ready");
		const removed = await run(r, "uninstall", { yes: true });
		expect(removed.ok).toBe(true);
		expect(await readFile(join(r.root, ".claude/settings.json"), "utf8")).toBe(settings);
	});

	test("co-owned files of every layout come back byte for byte", async () => {
		// Committed before refresh (makeRepo commits them): even `{}`, which refresh turns into what it writes for a new file, comes back.
		const layouts = [
			"{}\n",
			"{}",
			'{\n  "mcpServers": {}\n}\n',
			'{ "mcpServers": {} }\n',
			'{"theme":"x"}',
			'\uFEFF{\r\n\t"theme": "x", // mine\r\n\t"mcpServers": {\r\n\t\t"a": { "command": "a" },\r\n\t},\r\n}\r\n',
			'// top\n{\n    "mcpServers": {\n        "a": {\n            "command": "a"\n        }\n    }\n}\n',
			'{\n  "a": 1,\n  "mcpServers": { "b": { "command": "b" } },\n  "z": [1]\n}\n',
		];
		for (const layout of layouts) {
			const r = await repo({ config: '[project]\nagents = ["gemini"]\n[jobs]\ntest = "true"\n', files: { ".gemini/settings.json": layout } });
			expect((await run(r, "refresh")).ok).toBe(true);
			expect(await readFile(join(r.root, ".gemini/settings.json"), "utf8")).toContain('"discern"');
			expect((await run(r, "uninstall", { yes: true })).ok).toBe(true);
			expect({ layout, after: await readFile(join(r.root, ".gemini/settings.json"), "utf8") }).toEqual({ layout, after: layout });
		}
	});

	test("a file edited after refresh: discern's entry goes, the person's comments stay", async () => {
		const r = await repo({ config: '[project]\nagents = ["cursor"]\n[jobs]\ntest = "true"\n' });
		await mkdir(join(r.root, ".cursor"), { recursive: true });
		await writeFile(
			join(r.root, ".cursor/mcp.json"),
			'{\n  "mcpServers": {\n    "mine": { "command": "mine" }, // my server\n    "discern": { "command": "discern", "args": ["mcp"], "env": { "X": "1" } }\n  }\n}\n',
		);
		const result = await run(r, "uninstall", { yes: true });
		expect(actions(result)).toMatchObject({ ".cursor/mcp.json": "strip" });
		expect(await readFile(join(r.root, ".cursor/mcp.json"), "utf8")).toBe('{\n  "mcpServers": {\n    "mine": { "command": "mine" } // my server\n  }\n}\n');
	});

	test("a hand-written AGENTS.md and a CLAUDE.md that is not the pointer are kept", async () => {
		const r = await repo({
			config: '[jobs]\ntest = "true"\n',
			files: { "AGENTS.md": "# ours\n", "CLAUDE.md": "@AGENTS.md\nand more\n", "GEMINI.md": "@AGENTS.md\n" },
		});
		const result = await run(r, "uninstall", { yes: true });
		expect(result.ok).toBe(true);
		// GEMINI.md is the pointer, but gemini is not configured and AGENTS.md is not discern's: a person wrote it.
		expect(actions(result)).toMatchObject({ "AGENTS.md": "keep", "CLAUDE.md": "keep", "GEMINI.md": "keep" });
		for (const path of ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]) expect(await Bun.file(join(r.root, path)).exists()).toBe(true);
	});

	test("--dry-run lists every file with its action and writes nothing", async () => {
		const r = await repo({ config: '[project]\nagents = ["claude_code"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		const before = await snapshot(r.root);
		const result = await run(r, "uninstall", { dry_run: true });
		expect(result.ok).toBe(true);
		expect(result.dry_run).toBe(true);
		expect(actions(result)).toMatchObject({
			"AGENTS.md": "delete",
			"CLAUDE.md": "delete",
			".mcp.json": "delete",
			".claude/settings.json": "delete",
			"discern.toml": "keep",
		});
		expect(result.plan?.map((item) => item.label)).toEqual(files(result).map((file) => file.path));
		expect(await snapshot(r.root)).toEqual(before);
	});

	test("without --yes and without a terminal: the plan only, saying to pass --yes", async () => {
		const r = await repo({ config: '[project]\nagents = ["gemini"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		const before = await snapshot(r.root);
		const result = await run(r, "uninstall");
		expect(result.ok).toBe(true);
		expect(result.dry_run).toBe(true);
		expect(result.hints?.join(" ")).toContain("discern uninstall --yes");
		expect(await snapshot(r.root)).toEqual(before);
	});

	test("on a terminal it asks: no changes nothing, yes removes", async () => {
		const r = await repo({ config: '[project]\nagents = ["gemini"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		const questions: string[] = [];
		const no = await run(r, "uninstall", {}, async (question) => {
			questions.push(question);
			return false;
		});
		expect(no.ok).toBe(true);
		expect(no.message).toBe("Nothing removed.");
		expect(await Bun.file(join(r.root, "GEMINI.md")).exists()).toBe(true);
		const yes = await run(r, "uninstall", {}, async (question) => {
			questions.push(question);
			return true;
		});
		expect(yes.ok).toBe(true);
		expect(questions).toHaveLength(2);
		expect(await Bun.file(join(r.root, "GEMINI.md")).exists()).toBe(false);
		expect(await Bun.file(join(r.root, ".gemini")).exists()).toBe(false);
	});

	test("refuses while a linked worktree exists, naming it", async () => {
		const r = await repo({ config: '[project]\nagents = ["claude_code"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		const wt = `${r.root}.wt`;
		cleanup.push(wt);
		await r.git("worktree", "add", "-q", "-b", "agent/x", wt);
		const before = await snapshot(r.root);
		const result = await run(r, "uninstall", { yes: true });
		expect(result.ok).toBe(false);
		expect(result.ok ? null : result.error).toBe("active_worktrees");
		expect((result.data as { worktrees: { path: string; branch: string | null }[] }).worktrees).toEqual([{ path: wt, branch: "agent/x" }]);
		expect(result.hints?.join(" ")).toContain("discern worktree drop agent/x");
		expect(await snapshot(r.root)).toEqual(before);
		// From inside the worktree, too.
		const inside = await invokeVerb("uninstall", r.ctx({ env: r.env, cwd: wt }), { yes: true });
		expect(inside.ok ? null : inside.error).toBe("active_worktrees");
		await runGit(r.root, ["worktree", "remove", "--force", wt]);
		expect((await run(r, "uninstall", { yes: true })).ok).toBe(true);
	});

	test("a symlinked .git/discern is refused (write_denied), nothing outside is touched; in a real one only discern's names go", async () => {
		const r = await repo({ config: '[project]\nagents = ["codex"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		const outside = await makeTempDir("discern-outside-");
		cleanup.push(outside);
		await writeFile(join(outside, "precious.txt"), "mine\n");
		await writeFile(join(outside, "proof.json"), "{}\n");
		await rm(join(r.root, ".git", "discern"), { recursive: true, force: true });
		await symlink(outside, join(r.root, ".git", "discern"));
		const refused = await run(r, "uninstall", { yes: true });
		expect(refused.ok ? "" : refused.error).toBe("write_denied");
		expect(refused.message).toContain("symbolic link");
		expect(await readdir(outside)).toEqual(expect.arrayContaining(["precious.txt", "proof.json"]));
		expect(await readFile(join(r.root, "AGENTS.md"), "utf8")).toContain("Generated by discern");

		await rm(join(r.root, ".git", "discern"));
		await mkdir(join(r.root, ".git", "discern", "runs"), { recursive: true });
		await writeFile(join(r.root, ".git", "discern", "last-run.json"), "{}\n");
		await writeFile(join(r.root, ".git", "discern", "notes-of-mine.txt"), "keep\n");
		await symlink(join(outside, "precious.txt"), join(r.root, ".git", "discern", "proof-key"));
		const removed = await run(r, "uninstall", { yes: true });
		expect(removed.ok).toBe(true);
		expect((await readdir(join(r.root, ".git", "discern"))).filter((name) => name !== "logbook" && !name.endsWith("lock")).sort()).toEqual([
			"notes-of-mine.txt",
			"proof-key",
		]);
		expect(actions(removed)).toMatchObject({
			".git/discern/notes-of-mine.txt": "keep",
			".git/discern/proof-key": "keep",
			".git/discern/last-run.json": "delete",
			".git/discern/runs": "delete",
		});
		expect(await readFile(join(outside, "precious.txt"), "utf8")).toBe("mine\n");
	});

	test("a generated AGENTS.md with uncommitted notes appended by hand is kept, saying why; an exact one goes", async () => {
		const r = await repo({ config: '[project]\nagents = ["codex"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		await r.commitAll("wired");
		const generated = await readFile(join(r.root, "AGENTS.md"), "utf8");
		await writeFile(join(r.root, "AGENTS.md"), `${generated}\n## My notes\n\nDo not lose these.\n`);
		const kept = await run(r, "uninstall", { yes: true });
		expect(kept.ok).toBe(true);
		expect(actions(kept)["AGENTS.md"]).toBe("keep");
		expect(files(kept).find((file) => file.path === "AGENTS.md")).toMatchObject({ note: expect.stringContaining("changed since") });
		expect(await readFile(join(r.root, "AGENTS.md"), "utf8")).toContain("Do not lose these.");
		// The committed generated file (what HEAD holds) is discern's.
		await r.git("checkout", "--", "AGENTS.md");
		expect(actions(await run(r, "uninstall", { yes: true }))["AGENTS.md"]).toBe("delete");
	});

	// After a committed refresh HEAD holds discern's entry, so the file before it cannot be replayed: what is left must still keep
	// every comment a person wrote, even one beside a container discern's entry emptied.
	for (const [name, before, kept] of [
		["a comment in an otherwise empty file", '{\n  // c\n  "servers": {\n  }\n}\n', "// c"],
		["a comment after an emptied container", '{\n  "servers": {}, // trailing\n  "inputs": []\n}\n', "// trailing"],
	] as const) {
		test(`uninstall after a committed refresh keeps a person's JSONC comments: ${name}`, async () => {
			const r = await repo({ config: '[project]\nagents = ["copilot"]\n[jobs]\ntest = "true"\n', files: { ".vscode/mcp.json": before } });
			expect((await run(r, "refresh")).ok).toBe(true);
			expect(await readFile(join(r.root, ".vscode/mcp.json"), "utf8")).toContain("discern");
			await r.commitAll("wired");
			const removed = await run(r, "uninstall", { yes: true });
			expect(removed.ok).toBe(true);
			expect(actions(removed)[".vscode/mcp.json"]).toBe("strip");
			const after = await readFile(join(r.root, ".vscode/mcp.json"), "utf8");
			expect(after).toContain(kept);
			expect(after).not.toContain("discern");
		});
	}

	test("setup's folds go back: a hand-written AGENTS.md returns to its name, and the person's own CLAUDE.md pointer stays", async () => {
		const r = await repo({ files: { "README.md": "# fixture\n", "AGENTS.md": "# Our rules\n", "CLAUDE.md": "@AGENTS.md\n" } });
		expect((await run(r, "setup", { confirmed: true, agents: "claude_code" })).ok).toBe(true);
		const config = parseConfig(await readFile(join(r.root, "discern.toml"), "utf8"));
		if (!config.ok) throw new Error("setup wrote an invalid discern.toml");
		expect(config.config.instructions.sources).toEqual(["docs/agents/instructions.md"]);
		expect(await readFile(join(r.root, "AGENTS.md"), "utf8")).not.toBe("# Our rules\n");
		await r.commitAll("discern setup");

		const dry = await run(r, "uninstall", { dry_run: true });
		expect(dry.ok).toBe(true);
		expect(actions(dry)).toMatchObject({ "AGENTS.md": "delete", "docs/agents/instructions.md": "move", "CLAUDE.md": "keep" });
		expect(files(dry).find((file) => file.path === "docs/agents/instructions.md")).toMatchObject({ note: expect.stringContaining("moved back to AGENTS.md") });
		expect(files(dry).find((file) => file.path === "CLAUDE.md")).toMatchObject({ note: expect.stringContaining("AGENTS.md") });
		expect(await Bun.file(join(r.root, "docs/agents/instructions.md")).exists()).toBe(true);

		const removed = await run(r, "uninstall", { yes: true });
		expect(removed.ok).toBe(true);
		expect(await readFile(join(r.root, "AGENTS.md"), "latin1")).toBe("# Our rules\n");
		expect(await readFile(join(r.root, "CLAUDE.md"), "latin1")).toBe("@AGENTS.md\n");
		expect(await Bun.file(join(r.root, "docs/agents/instructions.md")).exists()).toBe(false);
		// discern.toml is kept, and still names the moved file (said in the note above).
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toContain("docs/agents/instructions.md");
		// git: the person's files are not deleted; against the commit before setup, AGENTS.md and CLAUDE.md are unchanged.
		const status = (await r.git("status", "--porcelain")).split("\n").filter((line) => line !== "");
		expect(status.filter((line) => /^(D.|.D) (AGENTS|CLAUDE)\.md$/.test(line))).toEqual([]);
		expect(await r.git("diff", "HEAD~1", "--", "AGENTS.md", "CLAUDE.md")).toBe("");
	});

	test("the files an undo moved aside (.git/discern/kept/) stay, said to be the person's", async () => {
		const r = await repo({ config: '[project]\nagents = ["codex"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		await mkdir(join(r.root, ".git", "discern", "kept", "2026-01-01T00-00-00.000Z-1"), { recursive: true });
		await writeFile(join(r.root, ".git", "discern", "kept", "2026-01-01T00-00-00.000Z-1", ".env"), "API_KEY=mine\n");
		const removed = await run(r, "uninstall", { yes: true });
		expect(removed.ok).toBe(true);
		const files = (removed.data as { files: { path: string; action: string; note?: string }[] }).files;
		expect(files.find((file) => file.path === ".git/discern/kept")).toMatchObject({ action: "keep", note: expect.stringContaining("yours") });
		expect(await readFile(join(r.root, ".git", "discern", "kept", "2026-01-01T00-00-00.000Z-1", ".env"), "utf8")).toBe("API_KEY=mine\n");
	});

	test("refuses while a resource ledger exists", async () => {
		const r = await repo({ config: '[project]\nagents = ["claude_code"]\n[jobs]\ntest = "true"\n' });
		expect((await run(r, "refresh")).ok).toBe(true);
		await mkdir(join(r.root, ".git", "discern", "resources"), { recursive: true });
		await writeFile(join(r.root, ".git", "discern", "resources", "x-a1b2c3.json"), "{}\n");
		const before = await snapshot(r.root);
		const result = await run(r, "uninstall", { yes: true });
		expect(result.ok).toBe(false);
		expect(result.ok ? null : result.error).toBe("provisioned_resources");
		expect((result.data as { resources: string[] }).resources).toEqual([join(r.root, ".git", "discern", "resources", "x-a1b2c3.json")]);
		expect(await snapshot(r.root)).toEqual(before);
	});

	test("nothing of discern's: says so and changes nothing", async () => {
		const r = await repo({ config: '[jobs]\ntest = "true"\n' });
		const result = await run(r, "uninstall", { yes: true });
		expect(result.ok).toBe(true);
		expect(result.message).toContain("Nothing of discern's");
		expect(await Bun.file(join(r.root, "discern.toml")).exists()).toBe(true);
	});
});
