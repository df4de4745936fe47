import { basename } from "node:path";
import type { RepositoryLocation } from "../git/repository.ts";

/** The environment every job runs with: the caller's, plus what tells a job where it is. */
export function jobEnvironment(
	base: Readonly<Record<string, string | undefined>>,
	repository: RepositoryLocation,
	trunk: string | null,
): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
	env.DISCERN_ROOT = repository.root;
	if (trunk) env.DISCERN_TRUNK = trunk;
	if (repository.location === "worktree") env.DISCERN_WORKTREE_ID = basename(repository.root);
	else delete env.DISCERN_WORKTREE_ID;
	return env;
}
