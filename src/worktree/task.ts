import * as v from "valibot";
import { writeStateFile } from "../state/dir.ts";
import { readStateJson } from "../state/json-file.ts";

/**
 * The task a worktree was started for, kept in the worktree's own git admin
 * dir (never committed, gone with the worktree): its id, title and brief,
 * and where its branch started.
 */
export const TaskRecord = v.object({
	version: v.literal(1),
	id: v.string(),
	title: v.nullable(v.string()),
	brief: v.nullable(v.string()),
	branch: v.string(),
	/** The commit the branch started from. */
	base: v.string(),
	/** The ref name given with --from, or the trunk's name. */
	from: v.string(),
	created_at: v.string(),
	created_by: v.literal("discern"),
	/**
	 * The env files `start` copied from the main checkout, each with the
	 * sha256 of what it copied: what `accept` compares with before the
	 * worktree's folder goes (an edit made there since is a person's).
	 * Absent in records written before it was kept.
	 */
	env_copies: v.optional(v.array(v.object({ path: v.string(), sha256: v.string() }))),
});
export type TaskRecord = v.InferOutput<typeof TaskRecord>;

const TASK_FILE = "task.json";

export async function writeTask(worktreeGitDir: string, task: TaskRecord): Promise<string> {
	return writeStateFile(worktreeGitDir, TASK_FILE, `${JSON.stringify(task, null, 2)}\n`, { mode: 0o600 });
}

/** The worktree's task, or null when it has none (not started by discern) or it is unreadable. */
export function readTask(worktreeGitDir: string): Promise<TaskRecord | null> {
	return readStateJson(worktreeGitDir, TASK_FILE, TaskRecord);
}
