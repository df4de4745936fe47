import { describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { docs, manualPages } from "../../src/verbs/docs/docs.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { testContext } from "../helpers/repo.ts";

const ctx = testContext("/");

describe("docs", () => {
	test("the index lists every bundled page with a title and summary", async () => {
		const result = await docs(ctx, {});
		if (result.data?.mode !== "index") throw new Error("expected the index");
		const targets = result.data.pages.map((page) => page.target);
		for (const required of ["getting-started", "loop", "config", "envelope", "mcp", "mcp/claude-code", "mcp/cursor", "mcp/vscode", "mcp/codex", "mcp/gemini"]) {
			expect(targets).toContain(required);
		}
		for (const page of result.data.pages) {
			expect(page.title.length).toBeGreaterThan(0);
			expect(page.summary.length).toBeGreaterThan(20);
		}
	});

	test("every file in docs/ is bundled", async () => {
		const files = (await readdir(join(REPO_ROOT, "docs"), { recursive: true })).filter((file) => String(file).endsWith(".md"));
		expect(manualPages().length).toBe(files.length);
	});

	test("a page is found however the target is spelled", async () => {
		for (const spelling of ["config", "config.md", "/config", "docs/config.md", "CONFIG"]) {
			const result = await docs(ctx, { target: spelling });
			expect(result.data?.mode).toBe("page");
		}
	});

	test("an unknown target suggests the nearest page", async () => {
		const result = await docs(ctx, { target: "confg" });
		expect(result.ok).toBe(false);
		expect(result.hints?.[0]).toContain("discern docs config");
	});

	test("search ranks a page about the words first and gives a snippet", async () => {
		const result = await docs(ctx, { search: "cursor mcp.json" });
		if (result.data?.mode !== "search") throw new Error("expected search");
		expect(result.data.matches[0]?.target).toBe("mcp/cursor");
		expect(result.data.matches[0]?.snippet.length).toBeGreaterThan(0);
	});

	test("search within a target stays under it", async () => {
		const result = await docs(ctx, { target: "mcp", search: "config" });
		if (result.data?.mode !== "search") throw new Error("expected search");
		for (const match of result.data.matches) expect(match.target === "mcp" || match.target.startsWith("mcp/")).toBe(true);
	});
});
