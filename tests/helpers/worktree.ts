import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { makeRepo, makeTempDir, type RepoOptions, runGit, type TestRepo } from "./repo.ts";

/** A repository with one linked worktree on its own branch, for `accept` and `update`. */
export interface WorktreeRepo extends TestRepo {
	wt: string;
	branch: string;
	wtGit: (...args: string[]) => Promise<string>;
	wtWrite: (path: string, content: string) => Promise<void>;
	wtCommit: (message?: string) => Promise<void>;
	sha: (revision: string) => Promise<string>;
	cleanupDirs: string[];
}

export async function makeWorktreeRepo(options: RepoOptions & { branch?: string; id?: string } = {}): Promise<WorktreeRepo> {
	const repo = await makeRepo(options);
	const parent = await makeTempDir("discern-wt-");
	const branch = "agent/x";
	const wt = join(parent, "x");
	await repo.git("worktree", "add", "-q", "-b", branch, wt);
	const wtGit = (...args: string[]) => runGit(wt, args);
	if (options.id) {
		const gitDir = (await wtGit("rev-parse", "--path-format=absolute", "--git-dir")).trim();
		await mkdir(join(gitDir, "discern"), { recursive: true });
		await writeFile(
			join(gitDir, "discern", "task.json"),
			JSON.stringify({ version: 1, id: options.id, title: "x", brief: "", branch, base: "main", from: "main", created_at: "now", created_by: "discern" }),
		);
	}
	return {
		...repo,
		wt,
		branch,
		wtGit,
		wtWrite: async (path, content) => {
			await mkdir(dirname(join(wt, path)), { recursive: true });
			await writeFile(join(wt, path), content);
		},
		wtCommit: async (message = "work") => {
			await wtGit("add", "-A");
			await wtGit("commit", "-q", "--allow-empty", "-m", message);
		},
		sha: async (revision) => (await repo.git("rev-parse", revision)).trim(),
		cleanupDirs: [repo.root, parent],
	};
}
