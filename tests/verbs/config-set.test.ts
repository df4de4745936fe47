import { afterEach, describe, expect, test } from "bun:test";
import { chmod, stat } from "node:fs/promises";
import { join } from "node:path";
import { setConfig, validateConfig } from "../../src/verbs/config/config.ts";
import { onlyJson, REPO_ROOT, runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { survivors } from "../helpers/processes.ts";
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
		const result = await setConfig(r.ctx(), { key: "gate.timeout", value: "900" });
		expectValidEnvelope("config set", result);
		expect(result.ok).toBe(true);
		expect(result.data?.value).toBe(900);
		expect(result.data?.edit).toEqual({ line: 6, before: "600", after: "900", written: true });
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG.replace("timeout = 600", "timeout = 900"));
	});

	test("a plain word becomes a string; a new job is added under [jobs]", async () => {
		const r = await repo();
		const result = await setConfig(r.ctx(), { key: "jobs.lint", value: "npm run lint" });
		expect(result.ok).toBe(true);
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toContain('test = "bun test"  # the suite\nlint = "npm run lint"\n');
	});

	test("--dry-run shows the edit and writes nothing", async () => {
		const r = await repo();
		const result = await setConfig(r.ctx(), { key: "gate.timeout", value: "900", dry_run: true });
		expectValidEnvelope("config set", result);
		expect(result.dry_run).toBe(true);
		expect(result.plan?.[0]?.note).toBe("line 6: `600` → `900`");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG);
	});

	test("a value that would break the config is refused and nothing is written", async () => {
		const r = await repo();
		const result = await setConfig(r.ctx(), { key: "gate.timeout", value: "soon" });
		expectValidEnvelope("config set", result);
		expect(result.ok ? "" : result.error).toBe("invalid_arguments");
		expect(result.message).toContain("`gate.timeout` must be a number, got string");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG);
	});

	test("usage: set needs KEY and VALUE; get and validate take no VALUE (each sub-command's own schema)", async () => {
		const r = await repo();
		for (const args of [
			["config", "set", "gate.timeout"],
			["config", "get", "gate.timeout", "1"],
			["config", "validate", "x"],
			["config", "get"],
			["config", "validate", "--dry-run"],
		]) {
			const run = await runDiscern([...args, "--json"], { cwd: r.root });
			expect(run.exitCode).toBe(2);
			const result = onlyJson(run.stdout);
			expect(result.error).toBe("invalid_arguments");
			expect(result.verb).toBe(`${args[0]} ${args[1]}`);
		}
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG);
	});

	test("keeps CRLF line endings, a byte-order mark and the file's mode", async () => {
		const r = await repo();
		const path = `${r.root}/discern.toml`;
		await Bun.write(path, `\uFEFF[gate]\r\ntimeout = 600\r\n`);
		await chmod(path, 0o600);
		const result = await setConfig(r.ctx(), { key: "gate.fail_fast", value: "false" });
		expect(result.ok).toBe(true);
		const bytes = await Bun.file(path).bytes();
		expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
		expect(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)).toBe("\uFEFF[gate]\r\ntimeout = 600\r\nfail_fast = false\r\n");
		expect((await stat(path)).mode & 0o777).toBe(0o600);
	});

	test("a value cannot smuggle in a second line or a comment", async () => {
		const r = await repo();
		const result = await setConfig(r.ctx(), { key: "jobs.lint", value: "5\n[gate]\nfail_fast = false" });
		expect(result.ok).toBe(true);
		const text = await Bun.file(`${r.root}/discern.toml`).text();
		expect(text).toContain('lint = "5\\n[gate]\\nfail_fast = false"');
		expect(text.match(/^\[gate\]/gm)?.length).toBe(1);
	});

	test("set repairs an invalid file, and takes words that look like numbers as the string they must be", async () => {
		const r = await repo();
		await Bun.write(`${r.root}/discern.toml`, '[gate]\ntimeout = "5"\n');
		expect((await setConfig(r.ctx(), { key: "gate.timeout", value: "5" })).ok).toBe(true);
		expect((await validateConfig(r.ctx(), {})).ok).toBe(true);
		const trunk = await setConfig(r.ctx(), { key: "repository.trunk", value: "2024" });
		expect(trunk.data?.value).toBe("2024");
	});

	test("a table written with dotted keys is left to the person", async () => {
		const r = await repo();
		await Bun.write(`${r.root}/discern.toml`, 'jobs.test = "x"\n');
		const result = await setConfig(r.ctx(), { key: "jobs.lint", value: "y" });
		expect(result.message).toContain("written with dotted keys");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe('jobs.test = "x"\n');
	});

	test("a key that is not Unicode is refused and nothing is written, not a crash", async () => {
		// An MCP client's JSON can carry a lone surrogate (`"\ud800"`). Quoted as that escape, which every TOML parser refuses,
		// the edit's own check crashed (internal_error); quoted as TOML can hold it (U+FFFD), the check sees another key and refuses.
		const r = await repo();
		const result = await invokeVerb("config set", r.ctx({ surface: "mcp" }), { key: "jobs.\ud800x", value: "x" });
		expectValidEnvelope("config set", result);
		expect(result).toMatchObject({ ok: false, error: "invalid_arguments" });
		expect(result.message).toContain("could not be written; edit it by hand.");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG);
	});

	test("a file that is not TOML is left to the person, its syntax error placed", async () => {
		const r = await repo();
		const broken = '[jobs]\ntest = "bun test\n';
		await Bun.write(`${r.root}/discern.toml`, broken);
		const result = await setConfig(r.ctx(), { key: "gate.timeout", value: "900" });
		expectValidEnvelope("config set", result);
		expect(result).toMatchObject({ ok: false, error: "invalid_config", message: "discern.toml is not valid TOML, so it cannot be edited key by key." });
		expect(result.data?.issues[0]).toMatchObject({ line: 2 });
		expect(result.data?.issues[0]?.message).toStartWith("TOML syntax: ");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(broken);
	});
});

describe("config set with structured values", () => {
	test("an inline table is written as an inline table, never as a string", async () => {
		const r = await repo();
		const result = await setConfig(r.ctx(), { key: "jobs.test", value: '{ run = "x", timeout = 5 }' });
		expectValidEnvelope("config set", result);
		expect(result.ok).toBe(true);
		expect(result.data?.value).toEqual({ run: "x", timeout: 5 });
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG.replace('test = "bun test"', 'test = { run = "x", timeout = 5 }'));
		const added = await setConfig(r.ctx(), { key: "jobs.e2e", value: '{run=["npm run build","npm run e2e"],stage="test"}' });
		expect(added.ok).toBe(true);
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toContain('e2e = { run = [ "npm run build", "npm run e2e" ], stage = "test" }\n');
	});

	test("a table the config rejects, or one that is not TOML, is refused and nothing is written", async () => {
		const r = await repo();
		for (const value of ['{ run = "x", timeot = 5 }', '{ run = "x", timeout = }', "{ run = npm test }", '["npm test", 5]']) {
			const result = await setConfig(r.ctx(), { key: "jobs.test", value });
			expectValidEnvelope("config set", result);
			expect(result.ok ? "" : result.error).toBe("invalid_arguments");
			expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(CONFIG);
		}
	});

	test("a string is quoted one way wherever it sits: bare words, a quoted string, an array or an inline table", async () => {
		const r = await repo();
		const control = "a\u001bb\u007f";
		for (const [value, line] of [
			[control, 'test = "a\\u001Bb\\u007F"'],
			['"a\\u001bb\\u007f"', 'test = "a\\u001Bb\\u007F"'],
			['["a\\u001bb\\u007f"]', 'test = [ "a\\u001Bb\\u007F" ]'],
			['{ run = "a\\u001bb\\u007f" }', 'test = { run = "a\\u001Bb\\u007F" }'],
		] as const) {
			const result = await setConfig(r.ctx(), { key: "jobs.test", value });
			expect(result.ok).toBe(true);
			expect(await Bun.file(`${r.root}/discern.toml`).text()).toContain(`${line}  # the suite\n`);
		}
	});

	test("a shell group is still a command, and a quoted TOML string is a string", async () => {
		const r = await repo();
		expect((await setConfig(r.ctx(), { key: "jobs.test", value: "{ make lint; make test; }" })).data?.value).toBe("{ make lint; make test; }");
		expect((await setConfig(r.ctx(), { key: "jobs.test", value: '"{ run = 1 }"' })).data?.value).toBe("{ run = 1 }");
	});
});

describe("config set and the checkout lock", () => {
	test("while a gate holds the lock, config set refuses with locked and changes nothing", async () => {
		const r = await makeRepo({ config: '[jobs]\ntest = "sleep 2"\n' });
		made.push(r);
		const before = await Bun.file(`${r.root}/discern.toml`).text();
		const gate = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), "done", "--json"], {
			cwd: r.root,
			stdout: "pipe",
			stderr: "pipe",
			env: { ...process.env, NO_COLOR: "1" },
		});
		try {
			await waitForLock(join(r.root, ".git", "discern", "lock"));
			// Through the pipeline, which takes the lock `config set` declares.
			const result = await invokeVerb("config set", r.ctx(), { key: "gate.timeout", value: "900" });
			expectValidEnvelope("config set", result);
			expect(result.ok ? "" : result.error).toBe("locked");
			expect(result.message).toContain("discern's `done`");
			expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(before);
			// A dry run writes nothing, so it needs no lock.
			expect((await setConfig(r.ctx(), { key: "gate.timeout", value: "900", dry_run: true })).ok).toBe(true);
		} finally {
			expect(await gate.exited).toBe(0);
		}
		// Once the gate is gone the lock is free again.
		expect((await setConfig(r.ctx(), { key: "gate.timeout", value: "900" })).ok).toBe(true);
		expect(await survivors(r.root)).toEqual([]);
	});
});

async function waitForLock(path: string): Promise<void> {
	for (let i = 0; i < 200; i++) {
		if (await Bun.file(path).exists()) return;
		await Bun.sleep(20);
	}
	throw new Error("the gate never took the lock");
}

describe("config set never trades one problem for another", () => {
	test("an edit that fixes one problem and introduces another is refused, naming the new one", async () => {
		const r = await repo();
		const text = '[jobs]\ntest = { run = "x", timeout = "5", report = 5 }\n[gate]\ntimeout = "5"\n';
		await Bun.write(`${r.root}/discern.toml`, text);
		// Two old problems go, one new one (a misspelt key) comes: fewer, but not a repair.
		const result = await setConfig(r.ctx(), { key: "jobs.test", value: '{ run = "x", timeot = 5 }' });
		expect(result.ok ? "" : result.error).toBe("invalid_arguments");
		expect(result.message).toContain("timeot");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe(text);
		// A real repair (one old problem gone, nothing new) is written.
		expect((await setConfig(r.ctx(), { key: "gate.timeout", value: "5" })).ok).toBe(true);
	});
});
