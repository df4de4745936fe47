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
			}),
		),
		v.description("Every program the jobs and scope gates start, looked up without running anything."),
	),
	also_proposed: v.pipe(
		v.array(
			v.strictObject({
				kind: v.pipe(v.picklist(["job", "scope", "ignore"]), v.description("`ignore`: a line the root .gitignore lacks (see `ignores`).")),
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
