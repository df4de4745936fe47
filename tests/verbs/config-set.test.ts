import { afterEach, describe, expect, test } from "bun:test";
import { config } from "../../src/verbs/config/config.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});

const CONFIG = '# ours\n[jobs]\ntest = "bun test"  # the suite\n\n[gate]\ntimeout = 600\n';

async function repo(): Promise<TestRepo> {
	const r = await makeRepo({ config: CONFIG });
	made.push(r);
	return r;
}

describe("config set", () => {
	test("edits one line, keeps the rest byte for byte, and reports the change", async () => {
		const r = await repo();
		const result = await config(r.ctx(), { action: "set", key: "gate.timeout", value: "900" });
		expectValidEnvelope("config", result);
		expect(result.ok).toBe(true);
		expect(result.data?.value).toBe(900);
		expect(result.data?.edit).toEqual({ line: 6, before: "600", after: "900", written: true });
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG.replace("timeout = 600", "timeout = 900"));
	});

	test("a plain word becomes a string; a new job is added under [jobs]", async () => {
		const r = await repo();
		const result = await config(r.ctx(), { action: "set", key: "jobs.lint", value: "npm run lint" });
		expect(result.ok).toBe(true);
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toContain('test = "bun test"  # the suite\nlint = "npm run lint"\n');
	});

	test("--dry-run shows the edit and writes nothing", async () => {
		const r = await repo();
		const result = await config(r.ctx(), { action: "set", key: "gate.timeout", value: "900", dry_run: true });
		expectValidEnvelope("config", result);
		expect(result.dry_run).toBe(true);
		expect(result.plan?.[0]?.note).toBe("line 6: `600` → `900`");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG);
	});

	test("a value that would break the config is refused and nothing is written", async () => {
		const r = await repo();
		const result = await config(r.ctx(), { action: "set", key: "gate.timeout", value: "soon" });
		expectValidEnvelope("config", result);
		expect(result.ok ? "" : result.error).toBe("invalid_arguments");
		expect(result.message).toContain("`gate.timeout` must be a number, got string");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG);
	});

	test("usage: set needs KEY and VALUE; get and validate take no VALUE", async () => {
		const r = await repo();
		for (const input of [{ action: "set" as const, key: "gate.timeout" }, { action: "get" as const, key: "gate.timeout", value: "1" }, { action: "validate" as const, key: "x" }]) {
			const result = await config(r.ctx(), input);
			expectValidEnvelope("config", result);
			expect(result.ok ? "" : result.error).toBe("invalid_arguments");
		}
	});
});
