import { describe, expect, test } from "bun:test";
import { pathsNamedIn } from "../../src/scopes/steering-words.ts";
import { interpreterCandidates, isGlobWord, isRunnerFile, reachedAs, runnerFiles, shWords } from "../../src/scopes/word-resolvers.ts";

describe("shWords: a command line split and unquoted as sh does", () => {
	test("a backslash keeps the next character; quotes join and are dropped", () => {
		expect(shWords("bash scripts/ho\\ok.sh")).toEqual(["bash", "scripts/hook.sh"]);
		expect(shWords(`sh "$CLAUDE_PROJECT_DIR"/x.sh 'a b'.sh "c\\"d"`)).toEqual(["sh", "$CLAUDE_PROJECT_DIR/x.sh", "a b.sh", 'c"d']);
		expect(shWords("a\\\nb")).toEqual(["ab"]);
	});

	test("operators, backquotes and `!` end words", () => {
		expect(shWords('for f in bin/*.sh; do sh "$f"; done')).toEqual(["for", "f", "in", "bin/*.sh", "do", "sh", "$f", "done"]);
		expect(shWords("Deploy: !`bash scripts/deploy.sh`&&x>out")).toEqual(["Deploy:", "bash", "scripts/deploy.sh", "x", "out"]);
	});

	test("a glob is a word sh expands", () => {
		expect(["bin/*.sh", "x/[ab].py", "x/{a,b}.sh", "f?.js"].map(isGlobWord)).toEqual([true, true, true, true]);
		expect(isGlobWord("bin/a.sh")).toBe(false);
	});
});

describe("interpreterCandidates: what an interpreter runs for a name", () => {
	test("Node's, the TypeScript runners', Python's, Ruby's and a shell's extensions, and a folder's index", () => {
		const found = interpreterCandidates("tools/srv");
		for (const path of [
			"tools/srv",
			"tools/srv.js",
			"tools/srv.mjs",
			"tools/srv.cjs",
			"tools/srv.ts",
			"tools/srv.mts",
			"tools/srv.cts",
			"tools/srv.py",
			"tools/srv.sh",
			"tools/srv.rb",
		])
			expect(found).toContain(path);
		for (const path of [
			"tools/srv/index.js",
			"tools/srv/index.mjs",
			"tools/srv/index.cjs",
			"tools/srv/index.ts",
			"tools/srv/__init__.py",
			"tools/srv/__main__.py",
		])
			expect(found).toContain(path);
	});

	test("a Python module (python3 -m a.b, -ma.b, an entry point a.b:main)", () => {
		for (const word of ["tools.hook", "-mtools.hook", "tools.hook:main"]) {
			const found = interpreterCandidates(word);
			for (const path of ["tools/hook.py", "tools/hook/__init__.py", "tools/hook/__main__.py"])
				expect([word, found]).toEqual([word, expect.arrayContaining([path])]);
		}
	});
});

describe("reachedAs: the names a file is reached by, the reverse of the resolvers", () => {
	test("itself, without its extension, a package's or runner file's folder", () => {
		expect(reachedAs("tools/srv.js")).toEqual(["tools/srv.js", "tools/srv"]);
		expect(reachedAs("tools/srv/index.ts")).toEqual(["tools/srv/index.ts", "tools/srv/index", "tools/srv"]);
		expect(reachedAs("tools/hook/__main__.py")).toEqual(["tools/hook/__main__.py", "tools/hook/__main__", "tools/hook"]);
		expect(reachedAs("sub/makefile")).toEqual(["sub/makefile", "sub"]);
		expect(reachedAs("docs/a.md")).toEqual(["docs/a.md"]);
		// Every candidate a word resolves to is reached by that word.
		for (const candidate of interpreterCandidates("tools/srv"))
			expect([candidate, reachedAs(candidate)]).toEqual([candidate, expect.arrayContaining(["tools/srv"])]);
	});
});

describe("runnerFiles: the file a task runner runs from", () => {
	test("make, just, npm, pnpm, yarn, bun, uv, poetry", () => {
		expect(runnerFiles(["make", "agent-hook"])).toEqual(["GNUmakefile", "makefile", "Makefile"]);
		expect(runnerFiles(["/usr/bin/just", "x"])).toEqual(["justfile", "Justfile", ".justfile"]);
		for (const runner of ["npm", "pnpm", "yarn", "bun", "npx"]) expect(runnerFiles([runner, "run", "x"])).toEqual(["package.json"]);
		for (const runner of ["uv", "poetry"]) expect(runnerFiles([runner, "run", "x"])).toEqual(["pyproject.toml"]);
		expect(runnerFiles(["node", "x"])).toEqual([]);
	});

	test("a runner's file is read as a script", () => {
		for (const path of ["Makefile", "pkg/GNUmakefile", "justfile", "package.json", "pyproject.toml"]) expect([path, isRunnerFile(path)]).toEqual([path, true]);
		expect(isRunnerFile("docs/make.md")).toBe(false);
	});
});

describe("pathsNamedIn: words resolved as their readers resolve them (hostile review round 2, D-F3)", () => {
	const files = ["tools/srv.js", "scripts/hook.sh", "bin/a.sh", "bin/b.sh", "bin/c.py", "tools/hook.py", "Makefile", "scripts/deploy.sh", "pkg/main/index.ts"];
	const exists = (path: string) => files.includes(path);
	const glob = (pattern: string) => (pattern === "bin/*.sh" ? ["bin/a.sh", "bin/b.sh"] : pattern === "/*" ? ["Makefile"] : []);
	const hook = (command: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } });

	test("each way a settings file names a file", () => {
		expect(pathsNamedIn('{ "mcpServers": { "x": { "command": "node", "args": ["tools/srv"] } } }', ".mcp.json", exists)).toEqual(["tools/srv.js"]);
		expect(pathsNamedIn(hook("bash scripts/ho\\ok.sh"), ".claude/settings.json", exists)).toEqual(["scripts/hook.sh"]);
		expect(pathsNamedIn(hook('for f in bin/*.sh; do sh "$f"; done'), ".claude/settings.json", exists, { glob })).toEqual(["bin/a.sh", "bin/b.sh"]);
		expect(pathsNamedIn(hook("python3 -m tools.hook"), ".claude/settings.json", exists)).toEqual(["tools/hook.py"]);
		expect(pathsNamedIn(hook("make agent-hook"), ".claude/settings.json", exists)).toEqual(["Makefile"]);
		const inFolder = (path: string) => ["sub/Makefile", "web/package.json", "sub", "web"].includes(path);
		expect(pathsNamedIn(hook("make -C sub x && npm --prefix web run y"), ".claude/settings.json", inFolder)).toEqual(
			expect.arrayContaining(["sub/Makefile", "web/package.json"]),
		);
		expect(pathsNamedIn(hook("tsx pkg/main"), ".claude/settings.json", exists)).toEqual(["pkg/main/index.ts"]);
	});

	test("an agent's markdown, read whole: frontmatter, !`cmd` lines, code spans and fences", () => {
		const command =
			"---\nallowed-tools: Bash(bash scripts/deploy.sh:*)\n---\nRun !`bash scripts/hook.sh` then `node tools/srv`.\n```\npython -m tools.hook\n```\n";
		expect(pathsNamedIn(command, ".claude/commands/deploy.md", exists, { everyWord: true, prose: true, glob }).sort()).toEqual([
			"scripts/deploy.sh",
			"scripts/hook.sh",
			"tools/hook.py",
			"tools/srv.js",
		]);
		// A markdown bullet is not a glob of the folder; in a script, `*` is.
		expect(pathsNamedIn("* item\n", "AGENTS.md", exists, { everyWord: true, prose: true, glob })).toEqual([]);
		expect(pathsNamedIn("for f in *; do sh $f; done\n", "hook.sh", exists, { everyWord: true, glob })).toEqual(["Makefile"]);
	});
});
