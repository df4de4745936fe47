import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";

/**
 * The task a worktree was started for, written by `start` into the
 * worktree's own git admin dir (`<gitDir>/discern/task.json`): never in
 * the tree, so no branch can commit one into place.
 */
export const TaskRecord = v.object({
	version: v.literal(1),
	id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
	title: v.string(),
	brief: v.string(),
	branch: v.string(),
	base: v.string(),
	from: v.string(),
	created_at: v.string(),
	created_by: v.string(),
});
export type TaskRecord = v.InferOutput<typeof TaskRecord>;

/** The largest task file read; a bigger one is not discern's. */
const MAX_TASK_BYTES = 256 * 1024;

export function taskPath(gitDir: string): string {
	return join(gitDir, "discern", "task.json");
}

/** The worktree's task, or null when there is none, it is not a plain file, or it does not parse. */
export async function readTask(gitDir: string): Promise<TaskRecord | null> {
	const path = taskPath(gitDir);
	const info = await lstat(path).catch(() => null);
	if (!info?.isFile() || info.size > MAX_TASK_BYTES) return null;
	try {
		const parsed = v.safeParse(TaskRecord, JSON.parse(await readFile(path, "utf8")));
		return parsed.success ? parsed.output : null;
	} catch {
		return null;
	}
}
