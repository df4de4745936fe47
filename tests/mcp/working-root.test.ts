import { afterEach, describe, expect, test } from "bun:test";
import { realpath, rm } from "node:fs/promises";
import { connectInMemory } from "../helpers/mcp.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** SPEC §10: the server's working root follows the agent into the worktree discern_start made. */
const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		await rm(`${r.root}.worktrees`, { recursive: true, force: true });
		await r.remove();
	}
});

type Structured = { structuredContent: { ok: boolean; data?: Record<string, unknown> }; isError?: boolean };

describe("the working root", () => {
	test("moves to the new worktree after discern_start and back after discern_accept lands it; a dry run and a refusal leave it where it was", async () => {
		const r = await makeRepo({ config: '[jobs]\ntest = "true"\n' });
		made.push(r);
		const { client, close } = await connectInMemory(r.root);
		try {
			const status = async () => ((await client.callTool({ name: "discern_status", arguments: {} })) as unknown as Structured).structuredContent.data ?? {};
			const dry = (await client.callTool({ name: "discern_start", arguments: { name: "preview", dry_run: true } })) as unknown as Structured;
			expect(dry.structuredContent.ok).toBe(true);
			expect((await status()).location).toBe("main");

			const started = (await client.callTool({ name: "discern_start", arguments: { title: "Fix login" } })) as unknown as Structured;
			expect(started.structuredContent.ok).toBe(true);
			const path = String(started.structuredContent.data?.path);
			const here = await status();
			expect(here.location).toBe("worktree");
			expect(await realpath(String(here.root))).toBe(await realpath(path));

			// From the worktree a second start is refused, and the root stays in the worktree.
			const again = (await client.callTool({ name: "discern_start", arguments: { title: "another" } })) as unknown as Structured;
			expect(again.isError).toBe(true);
			expect(await realpath(String((await status()).root))).toBe(await realpath(path));
			// An explicit path still reaches the main checkout.
			const main = (await client.callTool({ name: "discern_status", arguments: { path: r.root } })) as unknown as Structured;
			expect(main.structuredContent.data?.location).toBe("main");

			// Work, commit, prove and land it with consent: the worktree is gone and the root is the main checkout again.
			await Bun.write(`${path}/fix.txt`, "fixed\n");
			await r.git("-C", path, "add", "fix.txt");
			await r.git("-C", path, "commit", "-q", "-m", "fix login");
			const landed = (await client.callTool({ name: "discern_accept", arguments: { confirmed: true } })) as unknown as Structured;
			expect(landed.structuredContent.ok).toBe(true);
			expect(landed.structuredContent.data?.worktree_removed).toBe(true);
			const back = await status();
			expect(back.location).toBe("main");
			expect(await realpath(String(back.root))).toBe(await realpath(r.root));
			expect(await Bun.file(`${r.root}/fix.txt`).text()).toBe("fixed\n");
		} finally {
			await close();
		}
	});
});

describe("the working root and other worktrees", () => {
	test("accepting another worktree leaves the root where the agent works; a root whose folder is gone falls back to where the server started", async () => {
		const r = await makeRepo({ config: '[jobs]\ntest = "true"\n' });
		made.push(r);
		const { client, close } = await connectInMemory(r.root);
		try {
			const call = async (name: string, args: Record<string, unknown>) =>
				((await client.callTool({ name, arguments: args })) as unknown as Structured).structuredContent;
			const root = async () => String((await call("discern_status", {})).data?.root);
			const y = String((await call("discern_start", { title: "y" })).data?.path);
			await Bun.write(`${y}/y.txt`, "y\n");
			await r.git("-C", y, "add", "y.txt");
			await r.git("-C", y, "commit", "-q", "-m", "y");
			const x = String((await call("discern_start", { path: r.root, title: "x" })).data?.path);
			expect(await realpath(await root())).toBe(await realpath(x));
			// Landing y from the main checkout: the agent's root stays in x.
			const landed = await call("discern_accept", { path: r.root, target: (await realpath(y)).split("/").at(-1), confirmed: true });
			expect(landed.ok).toBe(true);
			expect(await realpath(await root())).toBe(await realpath(x));
			// x dropped from a terminal: the next call without `path` acts where the server started.
			await r.git("worktree", "remove", "--force", x);
			expect(await realpath(await root())).toBe(await realpath(r.root));
		} finally {
			await close();
		}
	});
});
