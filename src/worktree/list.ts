import { readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { git } from "../git/run.ts";

/** One checkout of the repository, as `git worktree list --porcelain -z` tells it. */
export interface WorktreeEntry {
	path: string;
	head: string | null;
	/** Branch name without `refs/heads/`, or null when detached or bare. */
	branch: string | null;
	/** The first entry: the main checkout. */
	main: boolean;
	bare: boolean;
	prunable: boolean;
}

/** Every checkout; null when git cannot list them. */
export async function listWorktrees(cwd: string): Promise<WorktreeEntry[] | null> {
	const result = await git(["worktree", "list", "--porcelain", "-z"], cwd);
	if (result.exitCode !== 0) return null;
	const entries: WorktreeEntry[] = [];
	let current: WorktreeEntry | null = null;
	for (const field of result.stdout.split("\0")) {
		if (field === "") {
			if (current) entries.push(current);
			current = null;
			continue;
		}
		if (field.startsWith("worktree ")) {
			if (current) entries.push(current);
			current = { path: field.slice("worktree ".length), head: null, branch: null, main: entries.length === 0, bare: false, prunable: false };
		} else if (!current) continue;
		else if (field.startsWith("HEAD ")) current.head = field.slice(5);
		else if (field.startsWith("branch refs/heads/")) current.branch = field.slice("branch refs/heads/".length);
		else if (field === "bare") current.bare = true;
		else if (field.startsWith("prunable")) current.prunable = true;
	}
	if (current) entries.push(current);
	return entries;
}

/** The task `start` recorded in a worktree's git admin dir, or null. */
export interface TaskRecord {
	id: string;
	title?: string;
	branch?: string;
}

export async function readTask(gitDir: string): Promise<TaskRecord | null> {
	try {
		const raw = JSON.parse(await readFile(join(gitDir, "discern", "task.json"), "utf8")) as Record<string, unknown>;
		if (typeof raw.id !== "string" || raw.id === "") return null;
		return { id: raw.id, ...(typeof raw.title === "string" ? { title: raw.title } : {}), ...(typeof raw.branch === "string" ? { branch: raw.branch } : {}) };
	} catch {
		return null;
	}
}

/** A path with its symlinks resolved, or itself when it does not exist. */
export async function realPathOf(path: string): Promise<string> {
	return realpath(path).catch(() => path);
}
