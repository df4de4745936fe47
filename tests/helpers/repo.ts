import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { VerbContext } from "../../src/contract/context.ts";
import { surfaceWords } from "./words.ts";

/** A real git repository in a temp dir, made for one test and removed after. */
export interface TestRepo {
	root: string;
	git: (...args: string[]) => Promise<string>;
	write: (path: string, content: string) => Promise<void>;
	commitAll: (message?: string) => Promise<void>;
	ctx: (overrides?: Partial<VerbContext>) => VerbContext;
	remove: () => Promise<void>;
}

export interface RepoOptions {
	/** Contents of discern.toml; omitted = no config. */
	config?: string;
	files?: Record<string, string>;
	/** Make an initial commit of everything written (default true). */
	commit?: boolean;
	branch?: string;
}

/**
 * A test's own git sees history as a person's git does: run under a gate (this project's own `discern done`),
 * the suite inherits the settings discern gives every job's git (no replace refs, no grafts, no commit-graph).
 */
const GATE_SETTINGS = /^(GIT_NO_REPLACE_OBJECTS|GIT_GRAFT_FILE|GIT_CONFIG_COUNT|GIT_CONFIG_(KEY|VALUE)_\d+)$/;

const GIT_ENV = {
	...Object.fromEntries(Object.entries(process.env).filter(([key]) => !GATE_SETTINGS.test(key))),
	GIT_CONFIG_NOSYSTEM: "1",
	GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
	GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

export async function runGit(cwd: string, args: readonly string[]): Promise<string> {
	const child = Bun.spawn(["git", ...args], { cwd, env: GIT_ENV, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
	const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
	if (code !== 0) throw new Error(`git ${args.join(" ")} failed (${code}): ${stderr}`);
	return stdout;
}

export async function makeTempDir(prefix = "discern-test-"): Promise<string> {
	return mkdtemp(join(tmpdir(), prefix));
}

export async function makeRepo(options: RepoOptions = {}): Promise<TestRepo> {
	const root = await makeTempDir();
	const git = (...args: string[]) => runGit(root, args);
	await git("init", "-q", "-b", options.branch ?? "main");
	await git("config", "user.name", "Test Person");
	await git("config", "user.email", "test@example.com");
	await git("config", "commit.gpgsign", "false");
	const write = async (path: string, content: string) => {
		await mkdir(dirname(join(root, path)), { recursive: true });
		await writeFile(join(root, path), content);
	};
	const commitAll = async (message = "commit") => {
		await git("add", "-A");
		await git("commit", "-q", "--allow-empty", "-m", message);
	};
	if (options.config !== undefined) await write("discern.toml", options.config);
	for (const [path, content] of Object.entries(options.files ?? { "README.md": "# fixture\n" })) await write(path, content);
	if (options.commit ?? true) await commitAll("initial");
	return {
		root,
		git,
		write,
		commitAll,
		ctx: (overrides = {}) => testContext(root, overrides),
		remove: () => rm(root, { recursive: true, force: true }),
	};
}

/** A core's context as the pipeline would hand it over, for the surface the overrides name (the CLI by default). */
export function testContext(cwd: string, overrides: Partial<VerbContext> = {}): VerbContext {
	const surface = overrides.surface ?? "cli";
	return { cwd, env: { PATH: process.env.PATH }, surface, version: "0.0.0-test", signal: new AbortController().signal, ...surfaceWords(surface), ...overrides };
}

/** A minimal valid config with a test job that always passes. */
export const BASIC_CONFIG = `[jobs]
lint = "true"
test = "true"
`;
