/**
 * Scope glob benchmark: `impact` where the only scope is 16 consecutive
 * `**\/` and the changed paths are 20 folders deep — minutes for a
 * backtracking matcher — against the same repository with a plain pattern.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { commitFixture } from "./setup.ts";

const DEPTH = 20;
const STARS = 16;

export interface GlobFixtures {
	/** The scope is `**\/` × 16 then `target.txt`. */
	pathological: string;
	/** The same tree and changes; the scope is `**\/target.txt`. */
	plain: string;
}

export async function makeGlobFixtures(dir: string): Promise<GlobFixtures> {
	const pathological = join(dir, "pathological");
	const plain = join(dir, "plain");
	await makeDeepRepo(pathological, `${"**/".repeat(STARS)}target.txt`);
	await makeDeepRepo(plain, "**/target.txt");
	return { pathological, plain };
}

async function makeDeepRepo(dir: string, pattern: string): Promise<void> {
	const deep = join(dir, ...Array.from({ length: DEPTH }, (_, i) => `d${i}`));
	await mkdir(deep, { recursive: true });
	await writeFile(join(dir, "discern.toml"), `[jobs]\ntest = "true"\n\n[scopes.deep]\npaths = ["${pattern}"]\n`);
	await writeFile(join(deep, "file.txt"), "committed\n");
	await commitFixture(dir, "fixture");
	// Untracked changes: one in the scope, and one the matcher has to reject at every depth.
	await writeFile(join(deep, "target.txt"), "changed\n");
	await writeFile(join(deep, "other.txt"), "changed\n");
}

/** Timing a wrong answer would prove nothing: both repositories must see exactly `deep` and `code` touched. */
export async function checkGlobFixture(discern: string, repo: string): Promise<void> {
	const proc = Bun.spawn([discern, "impact", "--json"], { cwd: repo, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
	const scopes: unknown = code === 0 ? (JSON.parse(stdout) as { data?: { scopes?: unknown } }).data?.scopes : undefined;
	if (JSON.stringify(scopes) !== JSON.stringify(["deep", "code"])) {
		throw new Error(`discern impact in ${repo} exited ${code} with scopes ${JSON.stringify(scopes)}, not ["deep","code"]`);
	}
}
