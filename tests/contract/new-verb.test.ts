import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/repo.ts";

/**
 * What it takes to add a verb: its folder and its line in the registry.
 * A copy of the source tree gets a throwaway verb `echo` that way, and
 * nothing else; it must then appear in help, in tools/list, in the MCP
 * instructions and resources, in the published schema and in the
 * faithfulness tests (which fail until the new verb has modes: it is
 * enrolled there too).
 */
let tree: string;

const VERB = `import * as v from "valibot";
import { defineVerb } from "../../contract/verb.ts";

export const echoVerb = defineVerb({
	name: "echo",
	title: "Echo",
	summary: "Say the words back.",
	mcpDescription: "Call it to hear the words back. It refuses nothing.",
	mcpGuide: { step: "learn", text: "discern_echo says the words back." },
	mcpResource: { name: "echo", title: "Echo", description: "The words said back (discern_echo's data)." },
	group: "Knowledge",
	input: v.strictObject({ words: v.optional(v.pipe(v.string(), v.description("What to say back."))) }),
	data: v.strictObject({ words: v.string() }),
	errors: [] as const,
	worksAnywhere: true,
	annotations: "readOnly",
	exposure: { tool: "discern_echo", project: false },
	cli: { positionals: ["words"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
`;

const MODULE = `import type { VerbContext } from "../../contract/context.ts";
import { ok, type Result } from "../../contract/envelope.ts";

export const verb = {
	run: async (_ctx: VerbContext, input: { words?: string | undefined }) => ok("echo", input.words ?? "", { words: input.words ?? "" }),
	render: (result: Result<"echo", { words: string }>) => result.data?.words ?? "",
};
`;

async function run(args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
	const child = Bun.spawn([process.execPath, ...args], { cwd: tree, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
	const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	return { exitCode, stdout, stderr };
}

beforeAll(async () => {
	tree = await makeTempDir("discern-new-verb-");
	for (const part of ["src", "scripts", "docs", "schema", "tests/contract", "tests/helpers", "package.json", "tsconfig.json", "bunfig.toml"]) {
		await cp(join(REPO_ROOT, part), join(tree, part), { recursive: true });
	}
	await symlink(join(REPO_ROOT, "node_modules"), join(tree, "node_modules"));
	// The folder…
	await mkdir(join(tree, "src/verbs/echo"), { recursive: true });
	await writeFile(join(tree, "src/verbs/echo/verb.ts"), VERB);
	await writeFile(join(tree, "src/verbs/echo/index.ts"), MODULE);
	// …and the registry line (with its import).
	const registry = join(tree, "src/registry.ts");
	const source = await readFile(registry, "utf8");
	const listed = source.replace("\thelpVerb,\n", "\thelpVerb,\n\techoVerb,\n");
	expect(listed).not.toBe(source);
	await writeFile(registry, `import { echoVerb } from "./verbs/echo/verb.ts";\n${listed}`);
});

afterAll(async () => {
	await rm(tree, { recursive: true, force: true });
});

describe("a new verb enrolls everywhere with its folder and its registry line", () => {
	test("it runs, and help lists it", async () => {
		const said = await run(["src/main.ts", "echo", "hello", "--json"]);
		expect(said.exitCode).toBe(0);
		expect(JSON.parse(said.stdout)).toMatchObject({ ok: true, verb: "echo", data: { words: "hello" } });
		const help = JSON.parse((await run(["src/main.ts", "help", "--json"])).stdout) as {
			data: { groups: { verbs: { name: string; summary: string; mcp_tool: string | null }[] }[] };
		};
		expect(help.data.groups.flatMap((group) => group.verbs)).toContainEqual({ name: "echo", summary: "Say the words back.", mcp_tool: "discern_echo" });
	});

	test("tools/list lists it, and the published schema has its envelope", async () => {
		const listed = await run(["-e", 'import { toolEntries } from "./src/mcp/tools.ts"; console.log(JSON.stringify([...toolEntries().keys()]))']);
		expect(JSON.parse(listed.stdout)).toContain("discern_echo");
		expect((await run(["scripts/gen-schemas.ts"])).exitCode).toBe(0);
		const schema = JSON.parse(await readFile(join(tree, "schema/discern-results.schema.json"), "utf8")) as {
			$defs: Record<string, { properties: { verb: { const: string } } }>;
		};
		expect(schema.$defs.echo?.properties.verb.const).toBe("echo");
	});

	test("the MCP instructions name it where its guide says, and its resource serves its data", async () => {
		const probe = [
			'import { INSTRUCTIONS } from "./src/mcp/instructions.ts";',
			'import { readResource } from "./src/mcp/resources.ts";',
			'const ctx = { cwd: process.cwd(), env: {}, surface: "mcp", version: "0", signal: new AbortController().signal };',
			'console.log(JSON.stringify({ instructions: INSTRUCTIONS, resource: await readResource("discern://echo", ctx) }));',
		].join("\n");
		const { instructions, resource } = JSON.parse((await run(["-e", probe])).stdout) as { instructions: string; resource: { text: string } | null };
		expect(instructions).toContain("discern_map is the project's own docs: read a region's page before changing it. discern_echo says the words back.");
		expect(instructions).toContain("discern://echo");
		expect(resource?.text).toBe('{"words":""}');
	});

	test("the faithfulness tests take it up: they fail until it has a success and a non-success mode", async () => {
		const tested = await run(["test", "tests/contract/faithfulness.test.ts", "-t", "every registered verb has at least"]);
		expect(tested.exitCode).not.toBe(0);
		expect(`${tested.stdout}${tested.stderr}`).toContain("every registered verb has at least a success mode and a non-success mode here");
	});
});
