import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectInMemory } from "../helpers/mcp.ts";
import { processesWithEnv, survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** The gate tools through the real SDK client: results, progress notifications, cancellation. */
let repo: TestRepo;
let hanging: TestRepo;
let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
	repo = await makeRepo({
		config: '[jobs]\nlint = "sleep 0.2"\ntypecheck = "true"\ntest = "echo testing"\n[scopes.docs]\npaths = ["docs/**"]\nneutral = true\n',
	});
	hanging = await makeRepo({ config: '[jobs]\ntest = "trap \'\' TERM; sleep 60"\nlint = "sleep 60 & sleep 60"\n' });
	({ client, close } = await connectInMemory(repo.root));
});
afterAll(async () => {
	await close();
	await Promise.all([repo.remove(), hanging.remove()]);
});

type Structured = { structuredContent: Record<string, unknown>; isError?: boolean };

describe("gate tools over MCP", () => {
	test("they are listed with honest annotations", async () => {
		const { tools } = await client.listTools();
		const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
		for (const name of ["discern_prepare", "discern_test", "discern_done"]) {
			expect(byName[name]?.annotations?.readOnlyHint).toBe(false);
			expect(byName[name]?.annotations?.openWorldHint).toBe(true);
		}
		expect(byName.discern_impact?.annotations?.readOnlyHint).toBe(true);
	});

	test("discern_done returns a Proof; a progressToken brings progress notifications", async () => {
		const progress: { progress: number; total?: number | undefined; message?: string | undefined }[] = [];
		const result = (await client.callTool({ name: "discern_done", arguments: {} }, undefined, {
			onprogress: (notification) => progress.push(notification),
		})) as unknown as Structured;
		expect(result.structuredContent.ok).toBe(true);
		expect(String((result.structuredContent.data as { proof: { line: string } }).proof.line)).toStartWith("Proof: main @ ");
		expect(progress.length).toBeGreaterThanOrEqual(6);
		expect(progress.map((event) => event.progress)).toEqual([...progress.map((event) => event.progress)].sort((a, b) => a - b));
		expect(progress.some((event) => event.message?.startsWith("lint ok"))).toBe(true);
	});

	test("discern_prepare and discern_test report steps; discern_impact reads scopes", async () => {
		const prepare = (await client.callTool({ name: "discern_prepare", arguments: { path: repo.root } })) as unknown as Structured;
		expect((prepare.structuredContent.steps as { label: string }[]).map((step) => step.label)).toEqual(["lint", "typecheck"]);
		const testRun = (await client.callTool({ name: "discern_test", arguments: { dry_run: true } })) as unknown as Structured;
		expect(testRun.structuredContent.dry_run).toBe(true);
		const impact = (await client.callTool({ name: "discern_impact", arguments: { has: "docs" } })) as unknown as Structured;
		expect((impact.structuredContent.data as { membership: boolean }).membership).toBe(false);
	});

	test("discern://impact is a resource", async () => {
		const { contents } = await client.readResource({ uri: "discern://impact" });
		expect(JSON.parse((contents[0] as { text: string }).text).complete).toBe(true);
	});

	test("cancelling a call kills every job tree it started", async () => {
		const controller = new AbortController();
		const call = client.callTool({ name: "discern_done", arguments: { path: hanging.root } }, undefined, { signal: controller.signal });
		const deadline = Date.now() + 10_000;
		while ((await processesWithEnv("DISCERN_ROOT", hanging.root)).length < 3 && Date.now() < deadline) await Bun.sleep(50);
		expect((await processesWithEnv("DISCERN_ROOT", hanging.root)).length).toBeGreaterThanOrEqual(3);
		controller.abort("the user changed their mind");
		await expect(call).rejects.toThrow();
		expect(await survivors(hanging.root, 5000)).toEqual([]);
	}, 30_000);

	test("a run the server stops (its client went away) returns interrupted, valid against the outputSchema", async () => {
		// A repository of its own: the previous test's cancelled run may still be releasing the other's lock.
		const stopped = await makeRepo({ config: '[jobs]\ntest = "trap \'\' TERM; sleep 60"\nlint = "sleep 60 & sleep 60"\n' });
		const shutdown = new AbortController();
		const own = await connectInMemory(stopped.root, { shutdown: shutdown.signal });
		try {
			// Listing first makes the SDK client check structuredContent against each tool's outputSchema.
			await own.client.listTools();
			const call = own.client.callTool({ name: "discern_done", arguments: {} });
			const deadline = Date.now() + 10_000;
			while ((await processesWithEnv("DISCERN_ROOT", stopped.root)).length < 3 && Date.now() < deadline) await Bun.sleep(50);
			shutdown.abort("eof");
			const result = (await call) as unknown as Structured;
			expect(result.isError).toBe(true);
			expect(result.structuredContent.error).toBe("interrupted");
			expect((result.structuredContent.data as { interrupted: boolean; failed_stage: string | null }).interrupted).toBe(true);
			expect(await survivors(stopped.root, 5000)).toEqual([]);
		} finally {
			await own.close();
			await stopped.remove();
		}
		// Waits for the jobs to start (up to 10 s) and for survivors (up to 5 s): a loaded machine needs the room.
	}, 30_000);
});
