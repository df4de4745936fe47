import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { lenientArgs } from "../../src/cli/citty-args.ts";
import { findVerb, LOOSE_VERBS } from "../../src/registry.ts";
import { onlyJson, runCliInProcess } from "../helpers/cli.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * The CLI runs through citty's command tree (`src/cli/command-tree.ts`),
 * with discern's grammar kept where citty's differs: a sub-command is only
 * the word right after its family, a flag before it is never dropped, and a
 * family's own run never runs after its sub-command's.
 */
let repo: TestRepo;
beforeAll(async () => {
	repo = await makeRepo({ config: '[jobs]\ntest = "true"\n\n[scopes.web]\npaths = ["web/**"]\n' });
});
afterAll(async () => {
	await repo.remove();
});

const cli = (argv: string[]) => runCliInProcess(argv, repo.root);

async function envelope(argv: string[]): Promise<{ code: number; verb: unknown; error: unknown; message: string }> {
	const run = await cli([...argv, "--json"]);
	const parsed = onlyJson(run.stdout);
	return { code: run.code, verb: parsed.verb, error: parsed.error, message: String(parsed.message) };
}

describe("the command tree", () => {
	test("reaches every verb of the registry, by its one or two words", async () => {
		for (const verb of LOOSE_VERBS) {
			const run = await cli([...verb.name.split(" "), "--help", "--json"]);
			const help = onlyJson(run.stdout) as { data: { verb?: { name: string } } };
			expect({ verb: verb.name, code: run.code, page: help.data.verb?.name }).toEqual({ verb: verb.name, code: 0, page: verb.name });
		}
	});

	test("a word after a verb that takes words is the verb's, not a sub-command citty does not know", async () => {
		const run = await envelope(["standards", "web", "api"]);
		expect(run.verb).toBe("standards");
		expect(run.error).not.toBe("unknown_command");
	});

	test("a flag before a sub-command's word is never dropped", async () => {
		expect(await envelope(["setup", "--dry-run", "verify"])).toMatchObject({ code: 2, verb: "setup", error: "invalid_arguments" });
		expect((await envelope(["--jsn", "status"])).message).toContain("`--jsn`");
		expect((await envelope(["worktree", "--all", "list"])).message).toContain("no sub-command `--all`");
	});

	test("names Object's prototype carries are unknown verbs", async () => {
		for (const word of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
			expect(await envelope([word])).toMatchObject({ code: 2, verb: "help", error: "unknown_command" });
		}
	});

	test("a missing argument is discern's usage error, not citty's (its parser is given nothing to enforce)", async () => {
		expect(await envelope(["config", "set", "gate.timeout"])).toMatchObject({ code: 2, error: "invalid_arguments", message: "VALUE is required." });
		expect(await envelope(["worktree", "drop"])).toMatchObject({ code: 2, error: "invalid_arguments", message: "ID is required." });
		expect(
			lenientArgs({
				name: { type: "positional", required: true, description: "A name." },
				mode: { type: "enum", options: ["fast", "full"], description: "How." },
			}),
		).toEqual({
			name: { type: "positional", required: false, description: "A name." },
			mode: { type: "string", valueHint: "fast|full", description: "How." },
		});
	});

	test("a sub-command answers alone: its family's verb does not run after it", async () => {
		const run = await cli(["setup", "verify", "--json"]);
		// onlyJson throws if setup's own envelope followed.
		expect(onlyJson(run.stdout).verb).toBe("setup verify");
	});

	test("a bug reached through the tree is a crash: exit 70, a report, the verb named", async () => {
		const status = findVerb("status") as unknown as { cli: unknown };
		const cliShape = Object.getOwnPropertyDescriptor(status, "cli");
		Object.defineProperty(status, "cli", {
			configurable: true,
			get() {
				throw new Error("boom");
			},
		});
		try {
			const run = await cli(["status", "--json"]);
			expect(run.code).toBe(70);
			expect(onlyJson(run.stdout)).toMatchObject({ ok: false, verb: "status", error: "internal_error" });
			const report = /A crash report is at (\S+)\.\n/.exec(run.stderr)?.[1];
			expect(report !== undefined && existsSync(report)).toBe(true);
			if (report) rmSync(report);
		} finally {
			if (cliShape) Object.defineProperty(status, "cli", cliShape);
		}
	});
});
