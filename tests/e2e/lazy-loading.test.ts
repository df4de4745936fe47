import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";

/**
 * The MCP SDK costs tens of milliseconds to load: only `discern mcp` may
 * load it. Each probe runs the real CLI in a fresh process and reports which
 * modules ended up loaded.
 */
async function loadedModules(args: readonly string[]): Promise<string[]> {
	const probe = `
		import { runCli } from ${JSON.stringify(join(REPO_ROOT, "src/cli/run.ts"))};
		await runCli(${JSON.stringify(args)}, { cwd: ${JSON.stringify(REPO_ROOT)}, env: process.env, isTTY: false, signal: new AbortController().signal, stdout: () => {}, stderr: () => {} });
		console.log(JSON.stringify(Object.keys(require.cache)));
	`;
	const child = Bun.spawn([process.execPath, "-e", probe], { cwd: REPO_ROOT, stdout: "pipe", stderr: "inherit" });
	const output = await new Response(child.stdout).text();
	expect(await child.exited).toBe(0);
	return JSON.parse(output.trim().split("\n").pop() ?? "[]") as string[];
}

const sdk = (modules: string[]) => modules.filter((path) => path.includes("@modelcontextprotocol"));

describe("lazy loading", () => {
	for (const args of [["--version"], ["status", "--json"], ["doctor", "--json"], ["docs", "config", "--json"]]) {
		test(`\`discern ${args.join(" ")}\` does not load the MCP SDK`, async () => {
			const modules = await loadedModules(args);
			expect(modules.length).toBeGreaterThan(0);
			expect(sdk(modules)).toEqual([]);
		});
	}

	test("`discern --version` loads no verb code", async () => {
		const modules = await loadedModules(["--version"]);
		// A verb's definition (verb.ts) and schemas are the registry's metadata; its core, rendering and index load only when it runs.
		expect(modules.filter((path) => path.includes("/src/verbs/") && !path.endsWith("/schema.ts") && !path.endsWith("/verb.ts"))).toEqual([]);
	});

	// consola's logger and the live progress line cost milliseconds at start-up: they load when something is narrated.
	for (const args of [["--version"], ["status", "--json"], ["status"]]) {
		test(`\`discern ${args.join(" ")}\` loads neither consola's logger nor the live progress line`, async () => {
			const modules = await loadedModules(args);
			expect(modules.filter((path) => /\/consola\/dist\/(index|core)\.mjs$/.test(path) || path.endsWith("/src/cli/progress.ts"))).toEqual([]);
		});
	}

	test("`discern status --verbose` does load consola (the check is real)", async () => {
		const modules = await loadedModules(["status", "--verbose"]);
		expect(modules.filter((path) => path.endsWith("/consola/dist/index.mjs"))).toHaveLength(1);
	});

	test("the probe can see the SDK when it is loaded (the check is real)", async () => {
		const probe = `await import(${JSON.stringify(join(REPO_ROOT, "src/mcp/server.ts"))}); console.log(JSON.stringify(Object.keys(require.cache)));`;
		const child = Bun.spawn([process.execPath, "-e", probe], { cwd: REPO_ROOT, stdout: "pipe" });
		const modules = JSON.parse((await new Response(child.stdout).text()).trim()) as string[];
		expect(sdk(modules).length).toBeGreaterThan(0);
	});
});
