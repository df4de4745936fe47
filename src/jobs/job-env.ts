import { basename } from "node:path";
import type { RepositoryLocation } from "../git/repository.ts";
import { RECORDED_HISTORY } from "../git/run.ts";

/**
 * What git itself clears when it enters another repository (`git rev-parse
 * --local-env-vars`), with the keys and values GIT_CONFIG_COUNT numbers: set
 * in the caller's environment (a git hook that runs discern, or an agent's
 * shell), they would have every git command of a job read another index,
 * object store or configuration than the checkout's the gate judged. (What
 * changes how sh reads a command's own words is runner.ts's list.)
 */
const REPOSITORY_VARIABLES = new Set([
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_CONFIG",
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY",
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_IMPLICIT_WORK_TREE",
	"GIT_GRAFT_FILE",
	"GIT_INDEX_FILE",
	"GIT_NO_REPLACE_OBJECTS",
	"GIT_REPLACE_REF_BASE",
	"GIT_PREFIX",
	"GIT_INTERNAL_SUPER_PREFIX",
	"GIT_SHALLOW_FILE",
	"GIT_COMMON_DIR",
]);

function pointsGitElsewhere(key: string): boolean {
	return REPOSITORY_VARIABLES.has(key) || /^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(key);
}

/**
 * History as the commits record it, for every git a job runs, as for discern's own reads (git/run.ts): replace
 * refs, a graft file and the commit-graph all live in `.git`, outside any commit, and each can show a job
 * another parent or another tree for a commit (a "lint what the branch changed" job then sees nothing). Its
 * settings go as GIT_CONFIG_KEY_n/VALUE_n, as a `-c` would: the repository's own `core.useReplaceRefs = true`
 * wins over GIT_NO_REPLACE_OBJECTS, not over them.
 */
const JOBS_HISTORY: Readonly<Record<string, string>> = {
	...RECORDED_HISTORY.env,
	GIT_CONFIG_COUNT: String(RECORDED_HISTORY.settings.length),
	...Object.fromEntries(
		RECORDED_HISTORY.settings.flatMap(([key, value], n) => [
			[`GIT_CONFIG_KEY_${n}`, key],
			[`GIT_CONFIG_VALUE_${n}`, value],
		]),
	),
};

/**
 * The environment every job runs with: the caller's without git's repository variables, with history as
 * recorded, plus what tells a job where it is.
 */
export function jobEnvironment(
	base: Readonly<Record<string, string | undefined>>,
	repository: RepositoryLocation,
	trunk: string | null,
): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(base)) if (value !== undefined && !pointsGitElsewhere(key)) env[key] = value;
	Object.assign(env, JOBS_HISTORY);
	env.DISCERN_ROOT = repository.root;
	if (trunk) env.DISCERN_TRUNK = trunk;
	if (repository.location === "worktree") env.DISCERN_WORKTREE_ID = basename(repository.root);
	else delete env.DISCERN_WORKTREE_ID;
	return env;
}
