import { afterEach, describe, expect, test } from "bun:test";
import { rm, symlink } from "node:fs/promises";
import { parseConfig } from "../../src/config/load.ts";
import { setup } from "../../src/verbs/setup/setup.ts";
import { verifySetup } from "../../src/verbs/setup/verify.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
const dirs: string[] = [];
afterEach(async () => {
	await Promise.all([...made.splice(0).map((r) => r.remove()), ...dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))]);
});
async function repo(files: Record<string, string>): Promise<TestRepo> {
	const r = await makeRepo({ files });
	made.push(r);
	return r;
}

const NODE_PROJECT = {
	"package.json": JSON.stringify({ scripts: { test: "vitest run", lint: "eslint .", build: "tsc -b", format: "prettier -w ." } }),
	"pnpm-lock.yaml": "lockfileVersion: 9\n",
	".gitignore": "node_modules/\n",
};

describe("setup", () => {
	test("without --confirmed it proposes and writes nothing", async () => {
		const r = await repo(NODE_PROJECT);
		const result = await setup(r.ctx(), {});
		expect(result.ok).toBe(true);
		expect(result.dry_run).toBe(true);
		expect(result.data?.jobs.map((job) => `${job.name}=${job.run}`)).toEqual([
			"format=pnpm run format",
			"build=pnpm run build",
			"lint=pnpm run lint",
			"test=pnpm run test",
		]);
		expect(result.plan?.map((item) => item.label)).toEqual(["discern.toml", "docs/map/README.md"]);
		expect(await Bun.file(`${r.root}/discern.toml`).exists()).toBe(false);
	});

	test("--confirmed writes a valid, commented discern.toml and the map skeleton", async () => {
		const r = await repo(NODE_PROJECT);
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok).toBe(true);
		expect(result.data?.written).toBe(true);
		const text = await Bun.file(`${r.root}/discern.toml`).text();
		expect(text).toContain("# ");
		expect(text).toBe(result.data?.config_text ?? "");
		const parsed = parseConfig(text);
		expect(parsed.ok).toBe(true);
		if (parsed.ok) {
			expect(parsed.config.jobs.test).toBe("pnpm run test");
			expect(parsed.config.repository.trunk).toBe("main");
		}
		expect(await Bun.file(`${r.root}/docs/map/README.md`).text()).toContain("# Project map");
	});

	test("--agents records the agents; an unknown one is refused with a suggestion", async () => {
		const r = await repo(NODE_PROJECT);
		const result = await setup(r.ctx(), { confirmed: true, agents: "claude_code, cursor" });
		const parsed = parseConfig(await Bun.file(`${r.root}/discern.toml`).text());
		expect(parsed.ok && parsed.config.project.agents).toEqual(["claude_code", "cursor"]);
		expect(result.ok).toBe(true);
		const typo = await setup(r.ctx(), { agents: "claude" });
		expect(typo.ok ? "" : typo.error).toBe("invalid_arguments");
		expect(typo.message).toContain("did you mean `claude_code`");
	});

	test("with discern.toml present, --confirmed writes only what is missing (the map skeleton)", async () => {
		const r = await repo({ ...NODE_PROJECT, "discern.toml": "# mine\n" });
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok).toBe(true);
		expect(result.data?.files).toEqual([
			{ path: "discern.toml", action: "keep" },
			{ path: "docs/map/README.md", action: "create" },
		]);
		expect(result.message).toContain("Wrote docs/map/README.md. discern.toml exists and is left alone.");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe("# mine\n");
		expect(await Bun.file(`${r.root}/docs/map/README.md`).text()).toContain("# Project map");
		// Once both exist there is nothing to write.
		const again = await setup(r.ctx(), { confirmed: true });
		expect(again.ok).toBe(true);
		expect(again.data?.written).toBe(false);
		expect(again.message).toBe("Nothing to write: discern.toml and docs/map/README.md exist.");
		expect(await Bun.file(`${r.root}/discern.toml`).text()).toBe("# mine\n");
	});

	test("the map skeleton goes where the existing discern.toml's [map].dir says; an invalid file writes nothing and says why", async () => {
		const r = await repo({ ...NODE_PROJECT, "discern.toml": '[map]\ndir = "notes/map"\n' });
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.data?.files).toEqual([
			{ path: "discern.toml", action: "keep" },
			{ path: "notes/map/README.md", action: "create" },
		]);
		expect(await Bun.file(`${r.root}/notes/map/README.md`).text()).toContain("# Project map");
		expect(await Bun.file(`${r.root}/docs/map/README.md`).exists()).toBe(false);

		await Bun.write(`${r.root}/discern.toml`, '[map]\ndir = "docs/map/"\n[jobs\n');
		const invalid = await setup(r.ctx(), { confirmed: true });
		expect(invalid.ok).toBe(true);
		expect(invalid.data?.written).toBe(false);
		expect(invalid.data?.files).toEqual([
			{ path: "discern.toml", action: "keep", reason: expect.stringContaining("discern.toml is invalid, so the map's folder is unknown") },
		]);
		expect(invalid.message).toStartWith("Nothing to write: discern.toml exists. discern.toml is invalid");
		expect(await Bun.file(`${r.root}/docs/map/README.md`).exists()).toBe(false);

		await Bun.write(`${r.root}/discern.toml`, '[map]\ndir = "../elsewhere/"\n');
		const outside = await setup(r.ctx(), { confirmed: true });
		expect(outside.data?.files).toEqual([
			{ path: "discern.toml", action: "keep", reason: "[map].dir `../elsewhere/` leads outside the repository, so no map skeleton is written." },
		]);
	});

	test("without --confirmed, a repository with discern.toml gets a preview of the map skeleton only", async () => {
		const r = await repo({ ...NODE_PROJECT, "discern.toml": "# mine\n" });
		const result = await setup(r.ctx(), {});
		expect(result.ok).toBe(true);
		expect(result.dry_run).toBe(true);
		expect(result.plan?.map((item) => [item.label, item.disposition])).toEqual([
			["discern.toml", "skip"],
			["docs/map/README.md", "run"],
		]);
		expect(await Bun.file(`${r.root}/docs/map/README.md`).exists()).toBe(false);
	});

	test("a workspace package's folder is one sh word in its scope gate, whatever its name holds", async () => {
		const r = await repo({
			"package.json": JSON.stringify({ name: "root", workspaces: ["packages/*"] }),
			"package-lock.json": "{}\n",
			"packages/a;touch pwned/package.json": JSON.stringify({ scripts: { test: "vitest run" } }),
		});
		const result = await setup(r.ctx(), {});
		expect(result.data?.scopes.map((scope) => scope.gate)).toEqual(["npm test -w 'packages/a;touch pwned'"]);
	});

	test("a sub-project's folder named like an option is not one to cd (cd -L would stay where it is)", async () => {
		const r = await repo({ "-L/Cargo.toml": '[package]\nname = "opt"\nversion = "0.1.0"\n' });
		const runs = ((await setup(r.ctx(), {})).data?.jobs ?? []).map((job) => job.run);
		expect(runs.length).toBeGreaterThan(0);
		for (const run of runs) expect(run).toStartWith("cd ./-L && ");
	});

	test("keeps an existing map README", async () => {
		const r = await repo({ "docs/map/README.md": "# our map\n" });
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.data?.files).toEqual([
			{ path: "discern.toml", action: "create" },
			{ path: "docs/map/README.md", action: "keep" },
		]);
		expect(await Bun.file(`${r.root}/docs/map/README.md`).text()).toBe("# our map\n");
	});

	test("verify is read-only and says whether discern is set up", async () => {
		const r = await repo(NODE_PROJECT);
		const before = await verifySetup(r.ctx(), {});
		expect(before.data?.config_exists).toBe(false);
		expect(before.dry_run).toBeUndefined();
		expect(await Bun.file(`${r.root}/discern.toml`).exists()).toBe(false);
		await setup(r.ctx(), { confirmed: true });
		const after = await verifySetup(r.ctx(), {});
		expect(after.data?.config_exists).toBe(true);
	});

	test("never writes through a discern.toml symlink that leaves the repository", async () => {
		const r = await repo({});
		const elsewhere = await makeTempDir();
		dirs.push(elsewhere);
		await symlink(`${elsewhere}/victim.toml`, `${r.root}/discern.toml`);
		const result = await setup(r.ctx(), { confirmed: true });
		// The link itself counts as an existing discern.toml; it names no map folder, so nothing is written.
		expect(result.data?.files).toEqual([{ path: "discern.toml", action: "keep", reason: "discern.toml cannot be read, so the map's folder is unknown." }]);
		expect(await Bun.file(`${elsewhere}/victim.toml`).exists()).toBe(false);
		expect(await Bun.file(`${r.root}/docs/map/README.md`).exists()).toBe(false);
	});

	test("a symlinked docs folder pointing outside is refused with write_denied", async () => {
		const r = await repo({});
		const elsewhere = await makeTempDir();
		dirs.push(elsewhere);
		await symlink(elsewhere, `${r.root}/docs`);
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("write_denied");
		expect(await Bun.file(`${elsewhere}/map/README.md`).exists()).toBe(false);
		// Refused before writing anything: no half-done setup.
		expect(await Bun.file(`${r.root}/discern.toml`).exists()).toBe(false);
	});

	test("a file where a folder belongs is refused before anything is written", async () => {
		const r = await repo({ docs: "not a folder\n" });
		const result = await setup(r.ctx(), { confirmed: true });
		expect(result.ok ? "" : result.error).toBe("write_denied");
		expect(await Bun.file(`${r.root}/discern.toml`).exists()).toBe(false);
	});
});
