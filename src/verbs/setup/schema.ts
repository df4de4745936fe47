import * as v from "valibot";
import { AGENTS, STAGES } from "../../config/schema.ts";

const Agents = v.pipe(v.string(), v.description(`Comma-separated agents to record in [project].agents: ${AGENTS.join(", ")}.`));

export const SetupInput = v.strictObject({
	confirmed: v.optional(v.pipe(v.boolean(), v.description("Write discern.toml and the map skeleton, and append the .gitignore lines the proposed jobs need."))),
	dry_run: v.optional(v.pipe(v.boolean(), v.description("Show what would be written; write nothing."))),
	agents: v.optional(Agents),
});

/** `setup verify`: read-only; the proposal and what is already in place. */
export const SetupVerifyInput = v.strictObject({
	agents: v.optional(
		v.pipe(v.string(), v.description(`Comma-separated agents the proposal shown would record (verify writes nothing): ${AGENTS.join(", ")}.`)),
	),
});

/** `setup verify` on a repository with discern.toml: what it checked. */
const Verification = v.strictObject({
	config: v.pipe(v.picklist(["valid", "invalid"]), v.description("Whether discern.toml parses and validates.")),
	issues: v.pipe(
		v.array(v.strictObject({ message: v.string(), line: v.optional(v.number()), col: v.optional(v.number()) })),
		v.description("Every problem of an invalid discern.toml."),
	),
	programs: v.pipe(
		v.array(
			v.strictObject({
				owner: v.pipe(v.string(), v.description("The job (`test`) or scope gate (`scopes.web`) whose command names it.")),
				program: v.string(),
				found: v.boolean(),
				detail: v.pipe(v.string(), v.description("Where it was found, or why it is missing.")),
				after_setup: v.optional(
					v.pipe(
						v.literal(true),
						v.description("Missing in this worktree, found in the main checkout: it arrives once the worktree's `[worktree.setup]` commands have run."),
					),
				),
			}),
		),
		v.description("Every program the jobs and scope gates start, looked up without running anything."),
	),
	also_proposed: v.pipe(
		v.array(
			v.strictObject({
				kind: v.pipe(
					v.picklist(["job", "scope", "install", "seed", "ignore"]),
					v.description(
						"`install`: a `[worktree.setup]` command discern.toml lacks (in neither `steps` nor `ensure`); `seed`: a `[worktree].seed` folder; `ignore`: a line the root .gitignore lacks (see `ignores`).",
					),
				),
				name: v.string(),
				line: v.string(),
				reason: v.string(),
			}),
		),
		v.description("What setup would propose that discern.toml (or, for `ignore`, the .gitignore files) lacks (advice; it does not fail verify)."),
	),
});

export const SetupData = v.strictObject({
	project_name: v.pipe(
		v.string(),
		v.description("From the root manifest (package.json, Cargo.toml, pyproject.toml or else setup.cfg's [metadata], go.mod), else the folder's name."),
	),
	stacks: v.array(v.strictObject({ kind: v.string(), evidence: v.string(), manager: v.optional(v.string()) })),
	jobs: v.array(
		v.strictObject({
			name: v.string(),
			stage: v.picklist(STAGES),
			run: v.string(),
			reason: v.string(),
			note: v.optional(
				v.pipe(v.string(), v.description('Set when a program the job starts does not resolve here: "`uv` is not installed here", with how to get it.')),
			),
		}),
	),
	scopes: v.array(v.strictObject({ name: v.string(), paths: v.array(v.string()), gate: v.optional(v.string()), reason: v.string() })),
	installs: v.pipe(
		v.array(
			v.strictObject({
				run: v.pipe(v.string(), v.description("The command, run in a new worktree (a sub-folder's project: `cd dir && …`).")),
				reason: v.pipe(v.string(), v.description("The file that led to it, e.g. the lockfile.")),
				note: v.optional(v.pipe(v.string(), v.description("Set when a program it starts does not resolve here, with how to get it."))),
			}),
		),
		v.description(
			"The `[worktree.setup].ensure` commands proposed: the install each stack's lockfile pins, without which a new worktree's jobs cannot find their tools. `start` runs them in each new worktree, `update` again after the trunk came in.",
		),
	),
	seeds: v.pipe(
		v.array(v.strictObject({ path: v.string(), reason: v.string() })),
		v.description(
			"The `[worktree].seed` folders proposed: build caches of the main checkout (node_modules where the install keeps it, Cargo's target) that `start` copies into a new worktree before its setup. Never a virtualenv: it holds absolute paths to the checkout it was made in.",
		),
	),
	agents: v.pipe(
		v.array(
			v.strictObject({ agent: v.picklist(AGENTS), reason: v.pipe(v.string(), v.description("Named with --agents, or which program was found on PATH.")) }),
		),
		v.description("The agents setup records in [project].agents, and why each: those named with --agents, else those whose CLI is on PATH."),
	),
	ignores: v.pipe(
		v.array(
			v.strictObject({
				line: v.pipe(v.string(), v.description("The line, e.g. `.pytest_cache/` (any depth) or `/target/` (that folder only).")),
				reason: v.pipe(v.string(), v.description("Which tool writes the folder, and for which proposed jobs.")),
			}),
		),
		v.description(
			"Lines for the root .gitignore: folders the proposed jobs write (tool caches, the environment or packages they run from) that the repository's .gitignore files do not ignore yet. The gate counts a file a job creates that the committed ignore rules do not ignore as the job changing the tree. With --confirmed they are appended (the file is created when absent; nothing already in it changes).",
		),
	),
	files: v.array(
		v.strictObject({
			path: v.string(),
			action: v.pipe(
				v.picklist(["create", "append", "keep", "move", "remove"]),
				v.description(
					"`append`: lines are added at the end (the root .gitignore: see `ignores`); nothing already there changes. `keep`: it exists and setup leaves it alone. `move`: a hand-written instruction file moves from `from` to `path` and is listed in [instructions].sources. `remove`: a link at a generated path (its target is kept).",
				),
			),
			from: v.optional(v.pipe(v.string(), v.description("For `move`: where the file was."))),
			reason: v.optional(v.string()),
		}),
	),
	config_exists: v.boolean(),
	written: v.boolean(),
	config_text: v.pipe(v.string(), v.description("The discern.toml setup proposes (or wrote).")),
	verify: v.optional(Verification),
});
export type SetupData = v.InferOutput<typeof SetupData>;
