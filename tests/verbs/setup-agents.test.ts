import { afterEach, describe, expect, test } from "bun:test";
import { chmod, lstat, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GENERATED_HEADER } from "../../src/agents/instructions.ts";
import { parseConfig } from "../../src/config/load.ts";
import { setup } from "../../src/verbs/setup/setup.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
const dirs: string[] = [];
afterEach(async () => {
	await Promise.all([...made.splice(0).map((r) => r.remove()), ...dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))]);
});
async function repo(files: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ files });
	made.push(r);
	return r;
}

/** A folder holding stub executables of these names, for a PATH. */
async function binWith(...names: string[]): Promise<string> {
	const bin = await makeTempDir("discern-agents-");
	dirs.push(bin);
	for (const name of names) {
		await writeFile(join(bin, name), "#!/bin/sh\nexit 0\n");
		await chmod(join(bin, name), 0o755);
	}
	return bin;
}

// Refresh writes this as the command agents start; these tests look at the instruction files only.
const RUNNING = { execPath: process.execPath, script: "/opt/discern/src/main.ts" };
const read = (r: TestRepo, path: string) => readFile(join(r.root, path), "utf8");

const HAND_AGENTS = "# How we work\r\n\r\nRun `make check` before pushing.\r\nNever touch vendor/.\r\n";
const HAND_CLAUDE = "# Claude notes\n\nPrefer small commits.\n\n- keep this list\n";

describe("setup learns agents", () => {
	test("the agent CLIs on PATH are recorded in [project].agents, each with why", async () => {
		const bin = await binWith("claude", "cursor");
		const r = await repo({ "README.md": "# x\n" });
		const result = await setup(r.ctx({ env: { PATH: `${bin}:/usr/bin:/bin` } }), {});
		expect(result.ok).toBe(true);
		expect(result.data?.agents).toEqual([
			{ agent: "claude_code", reason: `\`claude\` is on PATH (${bin}/claude)` },
			{ agent: "cursor", reason: `\`cursor\` is on PATH (${bin}/cursor)` },
		]);
		expect(result.message).toContain("Agents: claude_code (`claude` is on PATH");
		const parsed = parseConfig(result.data?.config_text ?? "");
		expect(parsed.ok && parsed.config.project.agents).toEqual(["claude_code", "cursor"]);
		expect(result.data?.config_text).toContain("(found on PATH: claude, cursor)");
	});

	test("no agent CLI on PATH: no agents, and the proposal says what it looked for", async () => {
		const r = await repo({ "README.md": "# x\n" });
		const result = await setup(r.ctx({ env: { PATH: await binWith() } }), {});
		expect(result.data?.agents).toEqual([]);
		expect(result.message).toContain("No agent CLI on PATH (looked for claude, codex, cursor-agent, cursor, gemini, copilot)");
		expect(result.data?.config_text).not.toContain("agents =");
	});

	test("--agents wins over what is on PATH", async () => {
		const bin = await binWith("claude");
		const r = await repo({ "README.md": "# x\n" });
		const result = await setup(r.ctx({ env: { PATH: bin } }), { agents: "codex" });
		expect(result.data?.agents).toEqual([{ agent: "codex", reason: "named with --agents" }]);
	});

	test("a hand-written AGENTS.md and CLAUDE.md are folded into the instruction sources, not overwritten; refresh succeeds", async () => {
		const r = await repo({ "AGENTS.md": HAND_AGENTS, "CLAUDE.md": HAND_CLAUDE });
		const preview = await setup(r.ctx(), { agents: "claude_code" });
		expect(preview.data?.files.filter((file) => file.action === "move").map((file) => [file.from, file.path])).toEqual([
			["AGENTS.md", "docs/agents/instructions.md"],
			["CLAUDE.md", "docs/agents/claude-instructions.md"],
		]);
		expect(preview.plan?.filter((item) => item.kind === "move").map((item) => item.label)).toEqual([
			"AGENTS.md → docs/agents/instructions.md",
			"CLAUDE.md → docs/agents/claude-instructions.md",
		]);
		expect(await read(r, "AGENTS.md")).toBe(HAND_AGENTS);

		const result = await setup(r.ctx(), { confirmed: true, agents: "claude_code" }, RUNNING);
		expect(result.ok).toBe(true);
		expect(result.message).toContain("Moved AGENTS.md to docs/agents/instructions.md");
		expect(result.message).not.toContain("not wired");
		const parsed = parseConfig(await read(r, "discern.toml"));
		const sources = parsed.ok ? parsed.config.instructions.sources : [];
		expect(sources).toEqual(["docs/agents/instructions.md", "docs/agents/claude-instructions.md"]);
		// Nothing the person wrote is lost: each file's bytes, exactly, in a listed source.
		expect(await read(r, "docs/agents/instructions.md")).toBe(HAND_AGENTS);
		expect(await read(r, "docs/agents/claude-instructions.md")).toBe(HAND_CLAUDE);
		// Refresh compiled them after discern's briefing; CLAUDE.md is the pointer.
		const agents = await read(r, "AGENTS.md");
		expect(agents.startsWith(GENERATED_HEADER)).toBe(true);
		expect(agents).toContain("Run `make check` before pushing.\nNever touch vendor/.");
		expect(agents).toContain("Prefer small commits.\n\n- keep this list");
		expect(await read(r, "CLAUDE.md")).toBe("@AGENTS.md\n");
		// Tracked files moved as `git mv` does: git sees renames.
		const staged = await r.git("status", "--porcelain");
		expect(staged).toContain("R  AGENTS.md -> docs/agents/instructions.md");
	});

	test("a CLAUDE.md that links to the hand-written AGENTS.md: the link goes, the text is folded once", async () => {
		const r = await repo({ "AGENTS.md": HAND_AGENTS });
		await symlink("AGENTS.md", join(r.root, "CLAUDE.md"));
		await r.commitAll("link");
		const result = await setup(r.ctx(), { confirmed: true, agents: "claude_code" }, RUNNING);
		expect(result.ok).toBe(true);
		expect(result.message).not.toContain("not wired");
		expect(result.data?.files.map((file) => [file.action, file.path])).toContainEqual(["remove", "CLAUDE.md"]);
		expect(await read(r, "docs/agents/instructions.md")).toBe(HAND_AGENTS);
		expect((await lstat(join(r.root, "CLAUDE.md"))).isSymbolicLink()).toBe(false);
		expect(await read(r, "CLAUDE.md")).toBe("@AGENTS.md\n");
		const parsed = parseConfig(await read(r, "discern.toml"));
		expect(parsed.ok && parsed.config.instructions.sources).toEqual(["docs/agents/instructions.md"]);
	});

	test("an untracked hand-written AGENTS.md is folded and staged, so refresh may compile it (a source must be tracked)", async () => {
		const r = await repo({ "README.md": "# x\n" });
		await r.write("AGENTS.md", HAND_AGENTS);
		const result = await setup(r.ctx(), { confirmed: true, agents: "claude_code" }, RUNNING);
		expect(result.ok).toBe(true);
		expect(result.message).not.toContain("not wired");
		expect(await r.git("ls-files", "--", "docs/agents/instructions.md")).toContain("docs/agents/instructions.md");
		expect(await read(r, "AGENTS.md")).toContain("Run `make check` before pushing.");
	});

	test("a git-ignored AGENTS.md (private notes) is never folded: left in place, not a source, and no hint to commit it", async () => {
		const r = await repo({ ".gitignore": "AGENTS.md\nCLAUDE.md\n" });
		await r.write("AGENTS.md", HAND_AGENTS);
		await r.write("CLAUDE.md", HAND_CLAUDE);
		const preview = await setup(r.ctx(), { agents: "claude_code" });
		expect(preview.data?.files.filter((file) => file.action === "move" || file.action === "remove")).toEqual([]);
		expect(preview.data?.files.filter((file) => file.action === "keep").map((file) => file.path)).toEqual(["AGENTS.md", "CLAUDE.md"]);
		const result = await setup(r.ctx(), { confirmed: true, agents: "claude_code" }, RUNNING);
		expect(result.ok).toBe(true);
		expect(await read(r, "AGENTS.md")).toBe(HAND_AGENTS);
		expect(await read(r, "CLAUDE.md")).toBe(HAND_CLAUDE);
		expect(await lstat(join(r.root, "docs/agents/instructions.md")).catch(() => null)).toBeNull();
		expect(await read(r, "discern.toml")).not.toContain("[instructions]");
		expect(result.message).toContain("AGENTS.md is ignored by git");
		expect(result.message).toContain("not wired yet");
		const said = [result.message, ...(result.hints ?? [])].join("\n");
		expect(said).not.toContain("git mv");
		expect(said).not.toContain("git add");
		expect(said).toContain("mv AGENTS.md AGENTS.local.md");
		expect(await r.git("status", "--porcelain", "--ignored")).toContain("!! AGENTS.md");
	});

	test("instruction files discern generated already, and agents not chosen, are left alone", async () => {
		const r = await repo({ "CLAUDE.md": "@AGENTS.md\n", "GEMINI.md": "# Gemini only\n" });
		const result = await setup(r.ctx(), { confirmed: true, agents: "claude_code" }, RUNNING);
		expect(result.ok).toBe(true);
		expect(result.data?.files.filter((file) => file.action === "move" || file.action === "remove")).toEqual([]);
		expect(await read(r, "GEMINI.md")).toBe("# Gemini only\n");
		expect(await read(r, "discern.toml")).not.toContain("[instructions]");
	});
});
