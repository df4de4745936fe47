import { afterEach, describe, expect, test } from "bun:test";
import { chmod, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { renderSetup as render } from "../../src/verbs/setup/render.ts";
import { SetupData } from "../../src/verbs/setup/schema.ts";
import { setup } from "../../src/verbs/setup/setup.ts";
import { makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";

/**
 * A proposed job whose program does not resolve here is said in the
 * proposal, with how to get it, before anything is written (issue 22,
 * item 2): not only `doctor`, after the config is committed.
 */

const made: TestRepo[] = [];
const dirs: string[] = [];
afterEach(async () => {
	await Promise.all([...made.splice(0).map((r) => r.remove()), ...dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))]);
});

/** A PATH folder holding stand-ins for `programs` (each exits 0), and nothing else. */
async function pathWith(programs: readonly string[]): Promise<string> {
	const bin = await makeTempDir();
	dirs.push(bin);
	for (const program of programs) {
		await writeFile(join(bin, program), "#!/bin/sh\nexit 0\n");
		await chmod(join(bin, program), 0o755);
	}
	return bin;
}

interface Case {
	name: string;
	files: Record<string, string>;
	/** Programs on PATH. */
	path: string[];
	/** job → its note (undefined: none). */
	notes: Record<string, string | undefined>;
}

const CASES: Case[] = [
	{
		name: "a uv project without uv: every job says uv is not installed, with where to get it",
		files: { "pyproject.toml": '[project]\nname = "demo"\n\n[tool.ruff]\nline-length = 88\n\n[tool.pytest.ini_options]\naddopts = "-q"\n', "uv.lock": "" },
		path: [],
		notes: {
			format: "`uv` is not installed here (install uv: https://docs.astral.sh/uv/getting-started/installation/)",
			lint: "`uv` is not installed here (install uv: https://docs.astral.sh/uv/getting-started/installation/)",
			test: "`uv` is not installed here (install uv: https://docs.astral.sh/uv/getting-started/installation/)",
		},
	},
	{
		name: "a pip project: flake8 missing is said, pytest found is not",
		files: { "setup.cfg": "[metadata]\nname = demo\n\n[flake8]\nmax-line-length = 100\n", "tests/test_x.py": "def test_x():\n    pass\n" },
		path: ["pytest"],
		notes: { lint: "`flake8` is not installed here (install flake8, or change the job's command)", test: undefined },
	},
	{
		name: "a pnpm project before `pnpm install`: the runner's binary comes with the dependencies",
		files: {
			"package.json": JSON.stringify({ name: "demo", scripts: { lint: "eslint ." }, devDependencies: { vitest: "^3.0.0", eslint: "^9.0.0" } }),
			"pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
			".gitignore": "node_modules/\n",
		},
		path: ["pnpm"],
		// The "lint" script's own command is looked at too: `eslint .` cannot start before the install either.
		notes: {
			lint: "`eslint` is not installed here (the project's dependencies are not installed: `pnpm install`)",
			test: "`vitest` is not installed here (the project's dependencies are not installed: `pnpm install`)",
		},
	},
	{
		name: "a Rust crate without cargo",
		files: { "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\n', "src/lib.rs": "" },
		path: [],
		notes: {
			format: "`cargo` is not installed here (install Rust with rustup: https://rustup.rs)",
			lint: "`cargo` is not installed here (install Rust with rustup: https://rustup.rs)",
			test: "`cargo` is not installed here (install Rust with rustup: https://rustup.rs)",
		},
	},
];

describe("setup says which proposed programs are not installed here", () => {
	for (const { name, files, path, notes } of CASES) {
		test(name, async () => {
			const r = await makeRepo({ files });
			made.push(r);
			const ctx = r.ctx({ env: { PATH: await pathWith(path) } });
			const result = await setup(ctx, {});
			expect(result.ok).toBe(true);
			expect(v.safeParse(SetupData, result.data).success).toBe(true);
			const jobs = result.data?.jobs ?? [];
			expect(Object.fromEntries(Object.keys(notes).map((job) => [job, jobs.find((item) => item.name === job)?.note]))).toEqual(notes);
			// Said before anything is written, and shown in the text.
			expect(await Bun.file(join(r.root, "discern.toml")).exists()).toBe(false);
			const text = render(result, { color: false, verbose: false });
			for (const note of Object.values(notes)) if (note !== undefined) expect(text).toContain(`note: ${note}`);
		});
	}
});
