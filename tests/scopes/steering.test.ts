import { describe, expect, test } from "bun:test";
import { declaredPaths } from "../../src/agents/providers.ts";
import { importsOf, leadsToSteering, steersAgents } from "../../src/scopes/steering.ts";
import { pathsNamedIn } from "../../src/scopes/steering-words.ts";
import { lineChanges } from "../../src/text/line-changes.ts";

const SOURCES = ["docs/agent-instructions.md", "./notes//extra.md"];

describe("steersAgents: the one list of what steers agents", () => {
	test.each([
		"AGENTS.md",
		"pkg/deep/AGENTS.md",
		"pkg/Agents.md",
		"AGENTS.override.md",
		"CLAUDE.md",
		"apps/web/claude.local.md",
		"GEMINI.md",
		".github/copilot-instructions.md",
		".github/instructions/ts.instructions.md",
		".github/prompts/release.prompt.md",
		".github/chatmodes/plan.chatmode.md",
		".github/workflows/copilot-setup-steps.yml",
		".mcp.json",
		".vscode/mcp.json",
		"apps/web/.vscode/mcp.json",
		".vscode/settings.json",
		".cursor/rules/x.mdc",
		".cursor/mcp.json",
		".cursor",
		"pkg/.cursor/rules/y.mdc",
		".codex/config.toml",
		".gemini/settings.json",
		".claude/settings.json",
		".claude/commands/ship.md",
		".cursorrules",
		".windsurfrules",
		".clinerules",
		".clinerules/01-style.md",
		".windsurf/rules/x.md",
		"discern.toml",
		"docs/agent-instructions.md",
		"notes/extra.md",
		"Docs/Agent-Instructions.md",
		// As a case-insensitive disk opens them: Windows drops trailing dots and spaces, NTFS's ::$DATA is the file, HFS+ ignores joiners.
		"AGENTS.md.",
		"pkg/CLAUDE.md ",
		"AGENTS.md::$DATA",
		"AGENTS\u200C.md",
		".Cursor./rules/x.mdc",
		// Agent files of more tools (hostile review B, finding 6).
		"QWEN.md",
		"pkg/CRUSH.md",
		"CRUSH.md",
		".crush.json",
		"WARP.md",
		"opencode.json",
		".opencode/command/ship.md",
		".zed/settings.json",
		".augment/rules/style.md",
		".trae/rules/project_rules.md",
		".idx/airules.md",
		".qwen/settings.json",
		// Case-folded as APFS and NTFS fold it (finding 7): the long s is an s, a fullwidth name its ASCII one.
		"AGENT\u017F.md",
		"pkg/AGENT\u017F.md",
		".cur\u017For/rules/x.mdc",
		".cur\u017For/mcp.json",
		"\uFF21\uFF27\uFF25\uFF2E\uFF34\uFF33.md",
		// Agent files of more tools (hostile review round 2, D-F4).
		".kilocode/rules/x.md",
		".openhands/microagents/repo.md",
		".openhands/setup.sh",
		".github/skills/x/SKILL.md",
		".augment-guidelines",
		".continuerules",
		".aiassistant/rules/x.md",
		".factory/droids/x.md",
		".agents/commands/x.md",
		".agents/skills/x/SKILL.md",
		".tabnine/guidelines/x.md",
		".vscode/tasks.json",
		"pkg/.vscode/tasks.json",
		".devcontainer/devcontainer.json",
		".devcontainer/Dockerfile",
		"CONVENTIONS.md",
		".cursorignore",
		".aiderignore",
	])("%s steers agents", (path) => {
		expect(steersAgents(path, SOURCES)).not.toBeNull();
	});

	test.each([
		"README.md",
		"src/agents/providers.ts",
		"docs/AGENTS-guide.md",
		"docs/agents.md.bak",
		"packages/x/discern.toml",
		".github/workflows/ci.yml",
		".vscode/launch.json",
		"docs/claude/notes.md",
		"notes/extra.md.orig",
	])("%s steers no agent", (path) => {
		expect(steersAgents(path, SOURCES)).toBeNull();
	});

	test("a file a steering file names steers agents, and says which file names it", () => {
		expect(steersAgents("docs/style.md", [], [{ path: "docs/style.md", via: "CLAUDE.md" }])).toContain("named by `CLAUDE.md`");
		expect(steersAgents("docs/other.md", [], [{ path: "docs/style.md", via: "CLAUDE.md" }])).toBeNull();
		// A linked folder (`.claude` → config/claude): everything under it.
		expect(steersAgents("config/claude/settings.json", [], [{ path: "config/claude", via: ".claude" }])).not.toBeNull();
		expect(steersAgents("config/claude-notes.md", [], [{ path: "config/claude", via: ".claude" }])).toBeNull();
	});

	test("a link stands for what steers agents when its name starts a rule's folders", () => {
		for (const path of [".github", "pkg/.vscode", ".github/workflows", ".claude/commands", "pkg/AGENTS.md", ".trae"])
			expect([path, leadsToSteering(path)]).toEqual([path, true]);
		for (const path of ["docs", "src/github", ".githubx"]) expect([path, leadsToSteering(path)]).toEqual([path, false]);
	});

	test("every file discern itself writes for an agent is on the list", () => {
		for (const path of declaredPaths()) expect([path, steersAgents(path, [])]).not.toEqual([path, null]);
	});
});

describe("lineChanges: the changed lines shown to the owner", () => {
	test("common lines are left out; removed and added lines are in order", () => {
		const before = "a\nb\nc\nd\ne\n";
		const after = "a\nB\nc\nd\nE\nf\n";
		expect(lineChanges(before, after, 10)).toEqual({ lines: ["- b", "+ B", "- e", "+ E", "+ f"], total: 5 });
	});

	test("bounded: the first lines, and how many in all", () => {
		const after = Array.from({ length: 30 }, (_, index) => `line ${index}`).join("\n");
		const changes = lineChanges("", after, 3);
		expect(changes.lines).toEqual(["+ line 0", "+ line 1", "+ line 2"]);
		expect(changes.total).toBe(30);
	});

	test("what a screen hides but an agent reads is written out, never dropped", () => {
		const tags = [..."push"].map((char) => String.fromCodePoint(0xe0000 + (char.codePointAt(0) ?? 0))).join("");
		const after = `Run tests\rSkip tests\n\u001b]0;Ignore the gate\u0007ok\nzero\u200Bwidth ${tags}\n`;
		expect(lineChanges("", after, 10).lines).toEqual([
			"+ Run tests\\x0dSkip tests",
			"+ \\x1b]0;Ignore the gate\\x07ok",
			"+ zero\\u{200b}width \\u{e0070}\\u{e0075}\\u{e0073}\\u{e0068}",
		]);
	});

	test("a large middle is shown whole, never fewer lines than changed", () => {
		const before = Array.from({ length: 600 }, (_, index) => `old ${index}`).join("\n");
		const after = Array.from({ length: 600 }, (_, index) => `new ${index}`).join("\n");
		expect(lineChanges(before, after, 2000).total).toBe(1200);
	});
});

describe("importsOf: what a markdown instruction file imports", () => {
	test("`@path` words outside code, relative to the file, inside the repository", () => {
		const text = [
			"See @docs/style.md and `@not/this`.",
			"```",
			"@nor/this",
			"```",
			"Also @./rel.md, @../out.md; @~/home.md @/abs.md @https://example.com/x and a@mail.com.",
			"@../../past-root.md",
		].join("\n");
		expect(importsOf(text, "pkg/CLAUDE.md")).toEqual(["pkg/docs/style.md", "pkg/rel.md", "out.md"]);
	});

	test("any text file imports, not only markdown; a settings file names its paths otherwise", () => {
		expect(importsOf("Follow @docs/rules.md\n", ".cursorrules")).toEqual(["docs/rules.md"]);
		expect(importsOf('{ "args": ["@scope/server"] }', ".vscode/mcp.json")).toEqual([]);
	});
});

/** VS Code's project-root variable, spelled out (not a template placeholder). */
const WORKSPACE_RUN = ["$", "{workspaceFolder}/bin/run.js"].join("");

describe("pathsNamedIn: the paths an agent's settings file names", () => {
	const tree = new Set([
		"scripts/hook.sh",
		"scripts",
		"tools/server.js",
		"tools",
		"CONTRIBUTING.md",
		"apps/web/bin/run.js",
		"apps/web/bin",
		"apps/web",
		"apps",
		"docs/ai",
		"docs",
	]);
	const exists = (path: string) => tree.has(path);

	test("a Claude Code hook's command, with the project-root variable and quotes", () => {
		const settings = JSON.stringify({
			hooks: { PreToolUse: [{ hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/scripts/hook.sh --fast && npx x' }] }] },
		});
		expect(pathsNamedIn(settings, ".claude/settings.json", exists)).toEqual(["scripts/hook.sh"]);
	});

	test("an MCP server's command and args, in JSON with comments", () => {
		const mcp = '{\n  // local server\n  "mcpServers": { "x": { "command": "node", "args": ["./tools/server.js", "--flag=1",], }, },\n}';
		expect(pathsNamedIn(mcp, ".mcp.json", exists)).toEqual(["tools/server.js"]);
		expect(pathsNamedIn(JSON.stringify({ servers: { x: { command: WORKSPACE_RUN } } }), "apps/web/.vscode/mcp.json", exists)).toEqual(["apps/web/bin/run.js"]);
	});

	test("Gemini CLI's contextFileName, Codex's TOML, a YAML file by a token scan, and path keys", () => {
		expect(pathsNamedIn('{ "contextFileName": ["CONTRIBUTING.md"] }', ".gemini/settings.json", exists)).toEqual(["CONTRIBUTING.md"]);
		expect(pathsNamedIn('[mcp_servers.x]\ncommand = "node"\nargs = ["tools/server.js"]\n', ".codex/config.toml", exists)).toEqual(["tools/server.js"]);
		expect(pathsNamedIn("read:\n  - CONTRIBUTING.md\nlint-cmd: 'sh scripts/hook.sh'\n", ".aider.conf.yml", exists)).toEqual([
			"CONTRIBUTING.md",
			"scripts/hook.sh",
		]);
		expect(pathsNamedIn('{ "chat.instructionsFilesLocations": { "docs/ai": true } }', ".vscode/settings.json", exists)).toEqual(["docs/ai"]);
	});

	test("words that name nothing in the tree, or outside it, are left out", () => {
		expect(pathsNamedIn('{ "command": "npx", "args": ["-y", "/etc/passwd", "~/x", "../out", "https://example.com/tools"] }', ".mcp.json", exists)).toEqual([]);
	});
});
