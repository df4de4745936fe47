import type * as v from "valibot";
import type { AnnotationPreset } from "./annotations.ts";
import type { VerbContext } from "./context.ts";
import { Envelope, type Result } from "./envelope.ts";
import { ConfigData, ConfigInput } from "../verbs/config/schema.ts";
import { DocsData, DocsInput } from "../verbs/docs/schema.ts";
import { DoctorData, DoctorInput } from "../verbs/doctor/schema.ts";
import { HelpData, HelpInput } from "../verbs/help/schema.ts";
import { SetupData, SetupInput } from "../verbs/setup/schema.ts";
import { StatusData, StatusInput } from "../verbs/status/schema.ts";
import { DoneData, DoneInput } from "../verbs/done/schema.ts";
import { PrepareData, PrepareInput } from "../verbs/prepare/schema.ts";
import { TestData, TestInput } from "../verbs/test/schema.ts";
import { ImpactData, ImpactInput } from "../verbs/impact/schema.ts";

/**
 * The verb registry: the single source the CLI, the MCP server, the
 * published JSON Schemas and the faithfulness tests all iterate. A verb
 * enrolls everywhere by being listed here. Schemas load eagerly (they are
 * small); each verb's code loads only when it runs.
 */

export const VERB_GROUPS = ["Daily loop", "Quality", "Knowledge", "Setup and admin"] as const;
export type VerbGroup = (typeof VERB_GROUPS)[number];

type InputSchema = v.StrictObjectSchema<v.ObjectEntries, undefined>;

/** What a verb's lazily loaded module provides: the core and its text rendering. */
export interface VerbModule<Name extends string, Input, Data> {
	run: (ctx: VerbContext, input: Input) => Promise<Result<Name, Data>>;
	/** The human text for a result's data (the shared renderer adds message, error and hints). */
	render: (result: Result<Name, Data>, options: RenderOptions) => string;
	/**
	 * For a yes/no question asked without --json: the exit code that answers
	 * it, printing nothing on stdout (`impact --has S`). Null for an ordinary
	 * result. It also sees failures (and crashes, as an `internal_error`
	 * result): a question that could not be answered must not read as "no".
	 */
	silentExit?: (result: Result<Name, Data>, input: Input) => SilentAnswer | null;
}

/** The exit code that answers a yes/no question, and a one-line warning for stderr when the answer is a guess. */
export interface SilentAnswer {
	code: 0 | 1;
	warning?: string;
}

export interface RenderOptions {
	color: boolean;
	verbose: boolean;
	/** Columns the CLI's text may use (`cli/width.ts`); absent over MCP. */ width?: number;
}

/** How a verb appears over MCP: a tool, or deliberately CLI-only with the reason. */
export type Exposure =
	| { tool: string; /** Takes an optional absolute `path` naming the checkout to act on. */ project: boolean }
	| { cliOnly: string };

export interface VerbDefinition<Name extends string, Input extends InputSchema, Data extends v.GenericSchema> {
	name: Name;
	title: string;
	summary: string;
	group: VerbGroup;
	input: Input;
	data: Data;
	envelope: ReturnType<typeof Envelope<Name, Data>>;
	annotations: AnnotationPreset;
	exposure: Exposure;
	cli: {
		/** Input keys filled from positional words, in order. */
		positionals?: readonly (keyof Input["entries"] & string)[];
		/** One-letter aliases for flags. */
		aliases?: Readonly<Partial<Record<keyof Input["entries"] & string, string>>>;
		examples?: readonly string[];
	};
	load: () => Promise<VerbModule<Name, v.InferOutput<Input>, v.InferOutput<Data>>>;
}

function defineVerb<const Name extends string, Input extends InputSchema, Data extends v.GenericSchema>(
	definition: Omit<VerbDefinition<Name, Input, Data>, "envelope">,
): VerbDefinition<Name, Input, Data> {
	return { ...definition, envelope: Envelope(definition.name, definition.data) };
}

export const VERBS = [
	defineVerb({
		name: "status",
		title: "Status: what is true now and the next action",
		summary: "What is true now in this checkout, and the one next action.",
		group: "Daily loop",
		input: StatusInput,
		data: StatusData,
		annotations: "readOnly",
		exposure: { tool: "discern_status", project: true },
		cli: { examples: ["discern status", "discern status --json"] },
		load: () => import("../verbs/status/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "prepare",
		title: "Prepare: formatters, then lint and typecheck",
		summary: "The fast inner loop: fix-stage jobs one at a time, then check-stage jobs in parallel. No build, no tests, no Proof.",
		group: "Daily loop",
		input: PrepareInput,
		data: PrepareData,
		annotations: "mutating",
		exposure: { tool: "discern_prepare", project: true },
		cli: { examples: ["discern prepare", "discern prepare --dry-run"] },
		load: () => import("../verbs/prepare/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "test",
		title: "Test: the test-stage jobs",
		summary: "Run the test-stage jobs alone, in parallel.",
		group: "Daily loop",
		input: TestInput,
		data: TestData,
		annotations: "mutating",
		exposure: { tool: "discern_test", project: true },
		cli: { examples: ["discern test", "discern test --dry-run"] },
		load: () => import("../verbs/test/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "done",
		title: "Done: the Gate on the committed tree, and a Proof when green",
		summary: "The Gate: every stage and the changed scopes' gates on the exact committed tree; a Proof when everything is green.",
		group: "Daily loop",
		input: DoneInput,
		data: DoneData,
		annotations: "mutating",
		exposure: { tool: "discern_done", project: true },
		cli: { examples: ["discern done", "discern done --dry-run", "discern done --standalone", "discern done --rerun"] },
		load: () => import("../verbs/done/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "impact",
		title: "Impact: which scopes this branch and tree touch",
		summary: "Which configured scopes the branch and the working tree touch, plus `code` when a non-neutral path changed.",
		group: "Quality",
		input: ImpactInput,
		data: ImpactData,
		annotations: "readOnly",
		exposure: { tool: "discern_impact", project: true },
		cli: { examples: ["discern impact", "discern impact --has web", "discern impact --has code && echo code changed"] },
		load: () => import("../verbs/impact/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "doctor",
		title: "Doctor: check the install, repository, config and agent wiring",
		summary: "Check the install, the repository, the config and the agent wiring; facts with fixes.",
		group: "Setup and admin",
		input: DoctorInput,
		data: DoctorData,
		annotations: "readOnly",
		exposure: { tool: "discern_doctor", project: true },
		cli: { examples: ["discern doctor", "discern doctor --verbose"] },
		load: () => import("../verbs/doctor/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "docs",
		title: "Docs: discern's own manual",
		summary: "Read discern's bundled manual: the index, a page, or search results.",
		group: "Knowledge",
		input: DocsInput,
		data: DocsData,
		annotations: "readOnly",
		exposure: { tool: "discern_docs", project: false },
		cli: { positionals: ["target"], aliases: { search: "s" }, examples: ["discern docs", "discern docs config", "discern docs --search timeout"] },
		load: () => import("../verbs/docs/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "setup",
		title: "Setup: adopt discern in a repository",
		summary: "Detect the stack, propose jobs, and (with --confirmed) write discern.toml and the map skeleton.",
		group: "Setup and admin",
		input: SetupInput,
		data: SetupData,
		annotations: "mutating",
		exposure: { cliOnly: "Adopting discern is the owner's decision, made once at a terminal; agents get a configured project." },
		cli: { positionals: ["action"], examples: ["discern setup", "discern setup verify", "discern setup --confirmed"] },
		load: () => import("../verbs/setup/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "config",
		title: "Config: validate, read and edit discern.toml",
		summary: "Validate discern.toml, read one key (`config get KEY`), or set one keeping comments and layout (`config set KEY VALUE`).",
		group: "Setup and admin",
		input: ConfigInput,
		data: ConfigData,
		annotations: "mutating",
		exposure: { cliOnly: "Agents read the config through the `discern://config` resource; editing it is a person's call." },
		cli: {
			positionals: ["action", "key", "value"],
			examples: ["discern config validate", "discern config get gate.timeout", "discern config set gate.timeout 900", 'discern config set jobs.lint "npm run lint"'],
		},
		load: () => import("../verbs/config/index.ts").then((module) => module.verb),
	}),
	defineVerb({
		name: "help",
		title: "Help",
		summary: "Grouped help, or one verb's flags and arguments.",
		group: "Setup and admin",
		input: HelpInput,
		data: HelpData,
		annotations: "readOnly",
		exposure: { cliOnly: "MCP clients discover tools through tools/list and the server instructions." },
		cli: { positionals: ["verb"], examples: ["discern help", "discern help status"] },
		load: () => import("../verbs/help/index.ts").then((module) => module.verb),
	}),
] as const;

export type AnyVerb = (typeof VERBS)[number];
export type VerbName = AnyVerb["name"];

export function findVerb(name: string): AnyVerb | undefined {
	return VERBS.find((verb) => verb.name === name);
}

/** The registry as one loosely typed list, for code that treats every verb alike (projections, tests). */
export interface LooseVerb {
	name: string;
	title: string;
	summary: string;
	group: VerbGroup;
	input: InputSchema;
	data: v.GenericSchema;
	envelope: v.GenericSchema;
	annotations: AnnotationPreset;
	exposure: Exposure;
	cli: { positionals?: readonly string[]; aliases?: Readonly<Record<string, string | undefined>>; examples?: readonly string[] };
	load: () => Promise<VerbModule<string, unknown, unknown>>;
}

export const LOOSE_VERBS: readonly LooseVerb[] = VERBS as unknown as readonly LooseVerb[];
