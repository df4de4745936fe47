/** What the benchmarks run against: the discern binary, a hello-world baseline, a fixture repository. */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Runs `build.ts`; its output goes to stderr so that `--json` keeps stdout to itself. */
export async function buildDiscern(root: string): Promise<void> {
	const proc = Bun.spawn([process.execPath, join(root, "build.ts")], { cwd: root, stdin: "ignore", stdout: 2, stderr: 2 });
	const code = await proc.exited;
	if (code !== 0) throw new Error(`build.ts exited with ${code}`);
}

/**
 * A compiled Bun hello-world with exactly the flags `build.ts` gives
 * discern, so the ratio measures discern's own start-up work, not Bun's.
 */
export async function buildHello(dir: string): Promise<string> {
	const entry = join(dir, "hello.ts");
	await writeFile(entry, `console.log("hello");\n`);
	return compiled(entry, join(dir, "hello"));
}

/** `entry` compiled with exactly the flags `build.ts` gives discern, to `outfile`. */
export async function compiled(entry: string, outfile: string): Promise<string> {
	const result = await Bun.build({
		entrypoints: [entry],
		minify: true,
		bytecode: true,
		format: "esm",
		sourcemap: "none",
		compile: { outfile, autoloadBunfig: false, autoloadDotenv: false },
	});
	if (!result.success) {
		for (const log of result.logs) console.error(log);
		throw new Error(`compiling ${entry} failed`);
	}
	if (!existsSync(outfile)) throw new Error(`compiling ${entry} wrote no ${outfile}`);
	return outfile;
}

const FIXTURE_FILES = 20;

/** A small committed repository with a valid `discern.toml`, like a fresh project. */
export async function makeFixture(dir: string): Promise<string> {
	await mkdir(join(dir, "src"), { recursive: true });
	await writeFile(join(dir, "discern.toml"), `[jobs]\ntest = "true"\n`);
	await writeFile(join(dir, "README.md"), "# fixture\n\nA small repository for `scripts/bench.ts`.\n");
	// discern.toml and README.md plus these make ~20 files.
	for (let i = 1; i <= FIXTURE_FILES - 2; i++) {
		const name = `module-${String(i).padStart(2, "0")}.ts`;
		await writeFile(join(dir, "src", name), `export const value${i} = ${i};\n`);
	}
	await commitFixture(dir, "Initial commit");
	return dir;
}

/** A new repository on `main` holding everything in `dir`, in one commit. */
export async function commitFixture(dir: string, message: string): Promise<void> {
	await git(dir, ["init", "-q", "-b", "main"]);
	// Local identity and no signing: the developer's global config must not break or slow the commit.
	await git(dir, ["config", "user.name", "discern bench"]);
	await git(dir, ["config", "user.email", "bench@example.invalid"]);
	await git(dir, ["config", "commit.gpgsign", "false"]);
	await git(dir, ["add", "-A"]);
	await git(dir, ["commit", "-q", "-m", message]);
}

async function git(cwd: string, args: readonly string[]): Promise<void> {
	const proc = Bun.spawn(["git", ...args], { cwd, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
	const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
	if (code !== 0) throw new Error(`git ${args.join(" ")} failed (${code}): ${stderr.trim()}`);
}
