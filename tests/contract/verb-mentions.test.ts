import { afterAll, describe, expect, test } from "bun:test";
import { readdir, readFile, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { composeText, invoke } from "../../src/invoke.ts";
import { INSTRUCTIONS } from "../../src/mcp/instructions.ts";
import { toolEntries } from "../../src/mcp/tools.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { BASIC_CONFIG, makeRepo } from "../helpers/repo.ts";
import { type MentionSurface, mentionProblems } from "../helpers/verb-mentions.ts";
import { MODES, type Mode } from "./modes.ts";

/**
 * Nothing sends a person or an agent to a verb, flag or tool that this build
 * lacks on their surface: every hint, message and next action of every
 * verb's modes (CLI and MCP), the MCP instructions, every tool description,
 * and the manual. See tests/helpers/verb-mentions.ts for the rules.
 */
const ROOT = join(import.meta.dir, "..", "..");
const cleanup: string[] = [];
afterAll(async () => {
	await Promise.all(cleanup.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function repo(options: Parameters<typeof makeRepo>[0] = {}) {
	const made = await makeRepo(options);
	cleanup.push(made.root);
	return made;
}

/** States the faithfulness modes do not reach but whose hints matter most: a proven tree, a red one, a branch behind its trunk. */
const MORE: Mode[] = [
	{
		verb: "done",
		mode: "already proven",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			await (await LOOSE_VERBS.find((verb) => verb.name === "done")?.load())?.run(made.ctx(), {});
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: true,
	},
	{
		verb: "done",
		mode: "refusal: unchanged red tree",
		arrange: async () => {
			const made = await repo({ config: '[jobs]\ntest = "exit 1"\n' });
			await (await LOOSE_VERBS.find((verb) => verb.name === "done")?.load())?.run(made.ctx(), {});
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: false,
	},
	{
		verb: "status",
		mode: "a red commit",
		arrange: async () => {
			const made = await repo({ config: '[jobs]\ntest = "exit 1"\n' });
			await (await LOOSE_VERBS.find((verb) => verb.name === "done")?.load())?.run(made.ctx(), {});
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: true,
	},
	{
		verb: "status",
		mode: "a proven branch",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			await made.git("switch", "-q", "-c", "task");
			await made.write("task.txt", "work");
			await made.commitAll("work");
			await (await LOOSE_VERBS.find((verb) => verb.name === "done")?.load())?.run(made.ctx(), {});
			return { ctx: made.ctx(), input: {} };
		},
		expectOk: true,
	},
	{
		verb: "done",
		mode: "refusal: a worktree behind its trunk",
		arrange: async () => {
			const made = await repo({ config: BASIC_CONFIG });
			const path = `${made.root}.wt`;
			cleanup.push(path);
			await made.git("worktree", "add", "-q", "-b", "task", path);
			await made.write("trunk.txt", "moved on");
			await made.commitAll("trunk moves");
			return { ctx: made.ctx({ cwd: path }), input: {} };
		},
		expectOk: false,
	},
];

/** The words a result says to its reader: message, hints, the next action, doctor's fixes. */
function wordsOf(result: AnyResult): { text: string; plain: boolean }[] {
	const data = (result.data ?? {}) as { next?: { action: string; reason: string }; checks?: { fix?: string }[]; categories?: { rules: { fix?: string }[] }[] };
	return [
		{ text: result.message, plain: false },
		...(result.hints ?? []).map((hint) => ({ text: hint, plain: false })),
		...(data.next?.action !== undefined
			? [
					{ text: data.next.action, plain: true },
					{ text: data.next.reason, plain: false },
				]
			: []),
		// A fix is a command ("discern setup") or a sentence with code spans.
		...(data.checks ?? []).flatMap((check) => (check.fix ? [{ text: check.fix, plain: /^(discern |ask the owner)/.test(check.fix) }] : [])),
		// The coach's fixes are sentences with code spans.
		...(data.categories ?? []).flatMap((category) => category.rules.flatMap((rule) => (rule.fix ? [{ text: rule.fix, plain: false }] : []))),
	];
}

describe("every verb and tool a result names exists on its surface", () => {
	for (const mode of [...MODES, ...MORE]) {
		for (const surface of ["cli", "mcp"] as const) {
			test(`${mode.verb}: ${mode.mode} (${surface})`, async () => {
				const verb = LOOSE_VERBS.find((candidate) => candidate.name === mode.verb);
				if (!verb) throw new Error(`unregistered verb ${mode.verb}`);
				const { ctx, input } = await mode.arrange();
				const module = await verb.load();
				const { result } = await invoke(verb, { ...ctx, surface }, input);
				expect(result.ok).toBe(mode.expectOk);
				const problems = wordsOf(result).flatMap(({ text, plain }) => mentionProblems(text, surface, { plain }));
				if (surface === "cli") problems.push(...mentionProblems(composeText(result, module.render(result, { color: false, verbose: true })), "cli"));
				expect(problems).toEqual([]);
			});
		}
	}
});

async function markdownFiles(dir: string): Promise<string[]> {
	const entries = await readdir(dir, { withFileTypes: true, recursive: true });
	return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".md")).map((entry) => join(entry.parentPath, entry.name));
}

describe("the texts that teach discern name only what exists", () => {
	test("the MCP instructions", () => {
		expect(mentionProblems(INSTRUCTIONS, "doc")).toEqual([]);
	});

	test("every tool description", () => {
		const problems = [...toolEntries().values()].flatMap((entry) =>
			mentionProblems(entry.listing.description, "doc").map((problem) => `${entry.name}: ${problem}`),
		);
		expect(problems).toEqual([]);
	});

	test("the manual (docs/) and the README", async () => {
		const files = [...(await markdownFiles(join(ROOT, "docs"))), join(ROOT, "README.md")];
		expect(files.length).toBeGreaterThan(5);
		const problems: string[] = [];
		for (const file of files) {
			const text = await readFile(file, "utf8");
			for (const problem of mentionProblems(text, "doc", { markdown: true })) problems.push(`${relative(ROOT, file)}: ${problem}`);
		}
		expect(problems).toEqual([]);
	});
});

describe("the scanner itself", () => {
	const check = (text: string, surface: MentionSurface, plain = false) => mentionProblems(text, surface, { plain });

	test("catches a verb, flag, sub-command or tool this build lacks", () => {
		expect(check("Run `discern frobnicate` to land it.", "cli")).toHaveLength(1);
		expect(check("`discern done --force` runs it anyway.", "cli")).toHaveLength(1);
		expect(check("`discern config gett gate.timeout`", "cli")).toHaveLength(1);
		// A family word alone is no command.
		expect(check("Run `discern config` to check it.", "cli")).toHaveLength(1);
		expect(check("Call discern_teleport first.", "doc")).toHaveLength(1);
		expect(check('`discern_done` with `{"force":true}`', "mcp")).toHaveLength(1);
		expect(check("git commit, or discern teleport", "cli", true)).toHaveLength(1);
		expect(mentionProblems("Run it:\n\n```sh\n$ discern update --onto main\n```\n", "doc", { markdown: true })).toHaveLength(1);
	});

	test("catches a printed git or mv command that a name it embeds splits or extends when pasted", () => {
		expect(check("Restore it with `git branch agent/x;touch$IFS/PWNED;# refs/discern/recovery/x`.", "cli")).toHaveLength(1);
		expect(check("Restore it with `git restore --source=$(touch PWNED) -- .`.", "mcp")).toHaveLength(1);
		expect(check("Rename it (`mv AGENTS.md notes&&rm x`).", "cli")).toHaveLength(1);
		expect(check("Restore it with `git branch 'agent/x;touch$IFS/PWNED;#' refs/discern/recovery/x`.", "cli")).toEqual([]);
	});

	test("over MCP: a command only as the owner's, and only for a verb that is not a tool", () => {
		expect(check("Then run `discern done --rerun`.", "mcp")).toHaveLength(1);
		expect(check("ask the owner to run `discern done` in a terminal", "mcp")).toHaveLength(1);
		expect(check("ask the owner to run `discern setup --confirmed` in a terminal", "mcp")).toEqual([]);
		expect(check("ask the owner to run discern config validate in a terminal", "mcp", true)).toEqual([]);
		expect(check('`discern_done` with `{"rerun":true}`', "mcp")).toEqual([]);
	});

	test("passes what exists, and leaves prose alone", () => {
		expect(
			check("`discern done --rerun`, `discern config get gate.timeout`, `discern docs --search WORDS`, `discern --version`, `discern mcp`", "cli"),
		).toEqual([]);
		expect(check("discern cannot write the Proof; discern is set up here.", "cli")).toEqual([]);
		expect(check("git switch -c BRANCH, git commit, then discern done", "cli", true)).toEqual([]);
	});
});
