import * as v from "valibot";

/**
 * The `discern.toml` schema. Every section is optional with defaults, so an
 * empty file is valid. Objects are strict: an unknown key is an error.
 * No transforms here, so the same schema exports to JSON Schema for editors;
 * normalization (job stages, command lists) lives in `jobs.ts`.
 */

export const AGENTS = ["claude_code", "codex", "cursor", "gemini", "copilot"] as const;
export const STAGES = ["fix", "build", "check", "test"] as const;
export type Stage = (typeof STAGES)[number];

/** Jobs whose stage follows from their name. */
export const KNOWN_JOB_STAGES: Readonly<Record<string, Stage>> = {
	format: "fix",
	build: "build",
	lint: "check",
	typecheck: "check",
	test: "test",
	smoke: "test",
};

/** The stage a job name implies. Own keys only: a job called `toString` is not a known job. */
export function knownStage(name: string): Stage | undefined {
	return Object.hasOwn(KNOWN_JOB_STAGES, name) ? KNOWN_JOB_STAGES[name] : undefined;
}

const described = <S extends v.GenericSchema>(schema: S, text: string) => v.pipe(schema, v.description(text));

const Command = described(v.string(), "A shell command, run with `sh -c` from the checkout root.");
export const CommandList = v.array(Command);
const Commands = v.union([Command, CommandList]);
// The upper bound is what a timer can hold (about 24.8 days); 0 already means "no limit".
const Seconds = described(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(2_147_483)), "Seconds; 0 means no limit.");
const FiniteNumber = v.pipe(v.number(), v.finite());
const Name = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/, "must use only letters, digits, `-` and `_`"));

/**
 * Valibot silently skips record keys that could reach a prototype, so a job
 * or scope with one of these names would vanish; the loader refuses them.
 */
export const RESERVED_NAMES = ["__proto__", "constructor", "prototype"] as const;

export const JobTable = v.strictObject({
	run: described(Commands, "The command, or a list run in order (later ones need earlier ones green)."),
	stage: v.optional(described(v.picklist(STAGES), "Required for a job whose name is not a known job.")),
	timeout: v.optional(Seconds),
	report: v.optional(described(v.string(), "A SARIF or JUnit XML file the job writes, parsed into diagnostics.")),
});

export const JobValue = v.union([Commands, JobTable]);
export type JobValue = v.InferOutput<typeof JobValue>;

const StringList = v.array(v.string());

export const DiscernConfig = v.strictObject({
	project: v.optional(
		v.strictObject({
			name: v.optional(described(v.string(), "Display name; a slug is derived when absent.")),
			agents: v.optional(described(v.array(v.picklist(AGENTS)), "Agents to brief and wire."), []),
		}),
		{},
	),
	repository: v.optional(
		v.strictObject({
			trunk: v.optional(described(v.pipe(v.string(), v.minLength(1)), "The landing branch.")),
			branch_prefix: v.optional(described(v.string(), "Prefix of task branches."), "agent/"),
		}),
		{},
	),
	jobs: v.optional(v.record(Name, JobValue), {}),
	gate: v.optional(
		v.strictObject({
			fail_fast: v.optional(described(v.boolean(), "A failing job cancels its running siblings."), true),
			timeout: v.optional(Seconds, 600),
		}),
		{},
	),
	scopes: v.optional(
		v.record(
			Name,
			v.strictObject({
				paths: described(v.pipe(StringList, v.minLength(1)), "Globs: `dir/**`, `*.ext`, `dir/`, exact paths; `/` anchors."),
				gate: v.optional(described(v.string(), "Runs in `done` only when this scope changed.")),
				neutral: v.optional(described(v.boolean(), "Changes here need no gate."), false),
			}),
		),
		{},
	),
	standards: v.optional(
		v.record(
			Name,
			v.strictObject({
				run: described(v.string(), "Prints `DISCERN_METRIC <name> <number>`."),
				direction: described(v.picklist(["up", "down"]), "up: the limit is a floor; down: a ceiling."),
				limit: FiniteNumber,
				margin: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0)), 0),
				metric: v.optional(v.string()),
				per: v.optional(v.string()),
				scale: v.optional(FiniteNumber),
			}),
		),
		{},
	),
	acceptance: v.optional(
		v.strictObject({
			pre_authorized: v.optional(described(StringList, "Scopes whose changes may land without per-landing consent."), []),
		}),
		{},
	),
	worktree: v.optional(
		v.strictObject({
			root: v.optional(described(v.string(), '"" means a sibling folder <repo>.worktrees/<id>.'), ""),
			inherit_env: v.optional(StringList, []),
			env_files: v.optional(StringList, [".env", ".env.local"]),
			port: v.optional(v.boolean(), false),
			seed: v.optional(
				described(StringList, "Ignored build-cache folders of the main checkout (`node_modules`, `target`) copied into a new worktree before its setup steps."),
				[],
			),
			setup: v.optional(
				v.strictObject({
					steps: v.optional(StringList, []),
					ensure: v.optional(StringList, []),
				}),
				{},
			),
			resources: v.optional(v.record(Name, v.strictObject({ create: v.string(), destroy: v.string() })), {}),
		}),
		{},
	),
	map: v.optional(v.strictObject({ dir: v.optional(v.string(), "docs/map/") }), {}),
	instructions: v.optional(v.strictObject({ sources: v.optional(StringList, []) }), {}),
});

export type DiscernConfig = v.InferOutput<typeof DiscernConfig>;
