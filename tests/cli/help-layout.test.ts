import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { onlyJson, REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/repo.ts";

/** `discern help` and every verb's help: one layout, no trailing spaces, the terminal's width. */

let outside: string;
beforeAll(async () => {
	outside = await makeTempDir();
});
afterAll(async () => {
	await rm(outside, { recursive: true, force: true });
});

type Envelope = { ok: boolean; verb: string; error?: string; message: string; hints?: string[]; data?: Record<string, unknown> };
const json = async (argv: string[], cwd = outside) => {
	const run = await runDiscern([...argv, "--json"], { cwd });
	expect(run.stderr).toBe("");
	return { exitCode: run.exitCode, envelope: onlyJson(run.stdout) as Envelope };
};

describe("per-verb help", () => {
	const pages = [[], ...LOOSE_VERBS.map((verb) => verb.name.split(" ")), ["config"], ["mcp"]];

	test("has the layout of `discern help`: a title, the usage line, titled sections, the same global flags", async () => {
		const overview = (await runDiscern(["help"])).stdout;
		expect(overview.startsWith("discern — ")).toBe(true);
		expect(overview).toContain("\nUsage: discern <verb> [flags]\n");
		expect(overview).toContain("\nGlobal flags\n");
		expect(overview).toContain("  -C, --cwd DIR  Act as if started in DIR.");
		for (const verb of LOOSE_VERBS) {
			const [page, viaFlag] = await Promise.all([runDiscern(["help", ...verb.name.split(" ")]), runDiscern([...verb.name.split(" "), "--help"])]);
			expect(page.exitCode).toBe(0);
			expect(viaFlag.stdout).toBe(page.stdout);
			expect(page.stdout.startsWith(`discern ${verb.name} — `)).toBe(true);
			expect(page.stdout).toContain(`\nUsage: discern ${verb.name}`);
			expect(page.stdout).toContain("\nGlobal flags\n");
			expect(page.stdout).toContain("  -C, --cwd DIR");
			// citty's own headings are gone: one layout everywhere.
			expect(page.stdout).not.toContain("OPTIONS");
		}
		const done = (await runDiscern(["help", "done"])).stdout;
		expect(done).toContain("\nFlags\n  --dry-run ");
		expect(done).toContain("\nExamples\n  discern done\n");
		expect(done.trimEnd().endsWith("MCP tool: discern_done")).toBe(true);
	}, 30_000);

	test("no line ends in a space, and none is wider than the width (80 by default, COLUMNS when narrower)", async () => {
		for (const columns of [undefined, "100", "72", "50", "32"]) {
			const width = columns === undefined ? 80 : Number(columns);
			const runs = await Promise.all(pages.map((page) => runDiscern(["help", ...page], { env: { COLUMNS: columns } })));
			for (const [index, run] of runs.entries()) {
				const page = pages[index];
				expect(run.exitCode).toBe(0);
				for (const line of run.stdout.split("\n")) {
					expect({ page, line, trailing: /\s$/.test(line) }).toEqual({ page, line, trailing: false });
					expect({ page, line, fits: [...line].length <= width }).toEqual({ page, line, fits: true });
				}
			}
		}
	}, 60_000);

	test("wraps to a real terminal's width (stdout a pseudo-terminal of 50 columns)", async () => {
		const main = `${REPO_ROOT}/src/main.ts`;
		const shell = `stty cols 50 rows 50; NO_COLOR=1 '${process.execPath}' '${main}' help done`;
		// No COLUMNS at all: the shell would export its own copy of one that is set, even empty.
		const { COLUMNS: _, ...env } = process.env;
		const child = Bun.spawn(["script", "-qec", shell, "/dev/null"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env });
		const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		expect(code).toBe(0);
		const onTerminal = stdout.replaceAll("\r", "");
		expect(onTerminal).toStartWith("discern done — ");
		expect(Math.max(...onTerminal.split("\n").map((line) => [...line].length))).toBeLessThanOrEqual(50);
		// Laid out exactly as for 50 columns, not for the default 80.
		const [at50, at80] = await Promise.all([
			runDiscern(["help", "done"], { env: { COLUMNS: "50" } }),
			runDiscern(["help", "done"], { env: { COLUMNS: undefined } }),
		]);
		expect(onTerminal).toBe(at50.stdout);
		expect(onTerminal).not.toBe(at80.stdout);
	});

	test("--json carries the help as data: usage line, arguments, flags, global flags, examples", async () => {
		const { envelope } = await json(["help", "docs"]);
		const data = envelope.data as {
			verb: { usage: string; arguments: { name: string }[]; flags: { name: string; alias: string | null; value: string | null }[]; examples: string[] };
			global_flags: { name: string }[];
		};
		expect(data.verb.usage).toBe("discern docs [TARGET] [flags]");
		expect(data.verb.arguments.map((argument) => argument.name)).toEqual(["TARGET"]);
		expect(data.verb.flags).toContainEqual(expect.objectContaining({ name: "search", alias: "s", value: "SEARCH" }));
		expect(data.global_flags.map((flag) => flag.name)).toEqual(["json", "cwd", "verbose", "quiet"]);
		expect(data.verb.examples).toContain("discern docs config");
	});
});
