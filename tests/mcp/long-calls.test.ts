import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { HEARTBEAT_MS } from "../../src/mcp/progress.ts";
import { connectInMemory } from "../helpers/mcp.ts";
import { processesWithEnv, survivors } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * A gate outlives a client's request timeout when the client resets it on
 * progress: the server sends a heartbeat whenever a call with a
 * progressToken has been quiet for its interval. The case (a 75 s
 * job under a 30 s timeout) is scaled down to seconds (a 4 s job under a
 * 3 s timeout, a 0.5 s heartbeat): the same race, affordable in the suite.
 */
const HEARTBEAT_FOR_TESTS_MS = 500;
const CLIENT_TIMEOUT_MS = 3_000;

type Structured = { structuredContent: Record<string, unknown>; isError?: boolean };
interface Notification {
	progress: number;
	total?: number | undefined;
	message?: string | undefined;
	at: number;
}

const repos: Record<"prepare" | "test" | "done" | "control", TestRepo> = {} as Record<"prepare" | "test" | "done" | "control", TestRepo>;

beforeAll(async () => {
	[repos.prepare, repos.test, repos.done, repos.control] = await Promise.all([
		makeRepo({ config: '[jobs]\nlint = "sleep 4"\n' }),
		makeRepo({ config: '[jobs]\ntest = "sleep 4"\n' }),
		makeRepo({ config: '[jobs]\ntest = "sleep 4"\n' }),
		makeRepo({ config: '[jobs]\ntest = "sleep 30"\n' }),
	]);
});
afterAll(async () => {
	await Promise.all(Object.values(repos).map((repo) => repo.remove()));
});

describe("long gate calls and a client's request timeout", () => {
	test("the real default sends a heartbeat at least every 10 s", () => {
		expect(HEARTBEAT_MS).toBeLessThanOrEqual(10_000);
	});

	test("discern_prepare, discern_test and discern_done outlast a shorter client timeout with resetTimeoutOnProgress", async () => {
		const { client, close } = await connectInMemory(repos.done.root, { heartbeatMs: HEARTBEAT_FOR_TESTS_MS });
		const clientErrors: Error[] = [];
		client.onerror = (error) => clientErrors.push(error);
		try {
			// Listing first makes the SDK client check each result against its tool's outputSchema.
			await client.listTools();
			const calls = (["prepare", "test", "done"] as const).map(async (verb) => {
				const seen: Notification[] = [];
				const startedAt = Date.now();
				const result = (await client.callTool({ name: `discern_${verb}`, arguments: { path: repos[verb].root } }, undefined, {
					timeout: CLIENT_TIMEOUT_MS,
					resetTimeoutOnProgress: true,
					onprogress: (notification) => seen.push({ ...notification, at: Date.now() }),
				})) as unknown as Structured;
				return { verb, result, seen, startedAt, endedAt: Date.now() };
			});
			for (const { verb, result, seen, startedAt, endedAt } of await Promise.all(calls)) {
				expect({ verb, ok: result.structuredContent.ok }).toEqual({ verb, ok: true });
				// The call really lasted longer than the client would have waited without progress.
				expect(endedAt - startedAt).toBeGreaterThan(CLIENT_TIMEOUT_MS);
				const label = verb === "prepare" ? "lint" : "test";
				const beats = seen.filter((notification) => notification.message?.includes("s elapsed"));
				expect(beats.length).toBeGreaterThanOrEqual(3);
				expect(beats.some((beat) => new RegExp(`running: ${label} \\(\\d+ s\\)`).test(beat.message ?? ""))).toBe(true);
				// Progress grows with every notification, heartbeats included.
				for (const [index, notification] of seen.entries()) {
					if (index > 0) expect(notification.progress).toBeGreaterThan(seen[index - 1]?.progress ?? Number.POSITIVE_INFINITY);
					if (notification.total !== undefined) expect(notification.progress).toBeLessThanOrEqual(notification.total);
				}
				// The job's own events are still there, in order around the heartbeats.
				expect(seen.map((notification) => notification.message).filter((message) => !message?.includes("s elapsed"))).toEqual([
					`${label} started`,
					expect.stringMatching(new RegExp(`^${label} ok \\(`)),
				]);
				// No silence as long as the client's timeout (the interval is 0.5 s; the margin is for a loaded machine).
				const times = [startedAt, ...seen.map((notification) => notification.at)];
				const longestSilence = Math.max(...times.slice(1).map((at, index) => at - (times[index] ?? at)));
				expect(longestSilence).toBeLessThan(CLIENT_TIMEOUT_MS);
			}
			// Nothing arrives for a token after its result: the client would report it as an unknown token.
			await Bun.sleep(HEARTBEAT_FOR_TESTS_MS * 3);
			expect(clientErrors).toEqual([]);
		} finally {
			await close();
		}
	}, 30_000);

	test("without resetTimeoutOnProgress the same client gives up (-32001), and its cancel kills the run", async () => {
		const { client, close } = await connectInMemory(repos.control.root, { heartbeatMs: HEARTBEAT_FOR_TESTS_MS });
		try {
			const call = client.callTool({ name: "discern_test", arguments: {} }, undefined, { timeout: 2_000, onprogress: () => undefined });
			const deadline = Date.now() + 1_500;
			while ((await processesWithEnv("DISCERN_ROOT", repos.control.root)).length === 0 && Date.now() < deadline) await Bun.sleep(50);
			expect((await processesWithEnv("DISCERN_ROOT", repos.control.root)).length).toBeGreaterThan(0);
			const error: unknown = await call.then(
				() => null,
				(rejected: unknown) => rejected,
			);
			expect(error).toBeInstanceOf(McpError);
			expect((error as McpError).code).toBe(ErrorCode.RequestTimeout);
			expect(await survivors(repos.control.root, 5000)).toEqual([]);
		} finally {
			await close();
		}
	});
});
