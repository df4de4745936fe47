import type * as v from "valibot";
import type { AnnotationPreset } from "./annotations.ts";
import type { VerbContext } from "./context.ts";
import { Envelope, type ExtraField, type Result } from "./envelope.ts";
import type { ErrorCode } from "./error-codes.ts";

/**
 * What a verb is, for every surface: its definition (name, help, schemas,
 * annotations, exposure, CLI shape) and what its lazily loaded module
 * provides. Each verb defines itself in `src/verbs/<verb>/verb.ts`; the
 * registry (`src/registry.ts`) lists them. This module imports no verb.
 */

/** The lock a verb declares: `checkout` for a writer; `repository` also for one that changes what every checkout sees. */
export type LockKind = "checkout" | "repository";

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
	/**
	 * Where the MCP server's working root moves after this result, or null to
	 * stay: `start` moves it into the new worktree, `accept` back to the main
	 * checkout once it removed the worktree (SPEC §10).
	 */
	workingRoot?: (result: Result<Name, Data>, currentRoot: string) => string | null;
}

/** The exit code that answers a yes/no question, and a one-line warning for stderr when the answer is a guess. */
export interface SilentAnswer {
	code: 0 | 1;
	warning?: string;
}

export interface RenderOptions {
	color: boolean;
	verbose: boolean;
	/** Jobs whose finished line the CLI already wrote where this text goes (a merged log): listed once, not twice. */
	narratedSteps?: ReadonlySet<string>;
	/** Columns the CLI's text may use (`cli/width.ts`); absent over MCP. */ width?: number;
}

/**
 * The steps of the work, in the order the MCP server's instructions walk an
 * agent through them ("How to work"): a verb's `mcpGuide` names its step.
 */
export const GUIDE_STEPS = ["task", "iterate", "prove", "land", "learn", "troubleshoot"] as const;
export type GuideStep = (typeof GUIDE_STEPS)[number];

/** What the MCP server's instructions tell an agent about a tool: where it fits in the work. */
export interface McpGuide {
	/** The step it belongs to: the sentences of one step share a line of the list, in registry order. */
	step: GuideStep;
	/** One or more whole sentences, naming the tool (`discern_prepare`). */
	text: string;
}

/**
 * An MCP resource carrying the verb's `data`, computed fresh on each read of
 * `discern://NAME` by running the verb without arguments (a failed run
 * yields its whole envelope, which says why).
 */
export interface McpResource<Argument extends string = string> {
	/** Its name in resources/list, and its URI's: `status` is `discern://status`. */
	name: string;
	title: string;
	description: string;
	/**
	 * Pages under it, `discern://NAME/{+ARGUMENT}`: each is read as the verb
	 * given `{ [argument]: "…" }`, and is the result's `data.content`
	 * (markdown) when its `data.mode` is "page"; any other result is no page.
	 */
	pages?: {
		argument: Argument;
		title: string;
		/** What resources/templates/list says of the template. */
		description: string;
		/** Also list each page in resources/list: the verb's data without arguments names them (`pages`: target, title, summary). */
		listed?: boolean;
	};
}

/** How a verb appears over MCP: a tool, or deliberately CLI-only with the reason. */
export type Exposure =
	| { tool: string /** Takes an optional absolute `path` naming the checkout to act on. */; project: boolean }
	| {
			cliOnly: string;
			/** A sub-command an MCP tool of another verb performs given these arguments (`standards pin` is `discern_standards` with `pin: true`): hints name that. */
			asTool?: { tool: string; args: Readonly<Record<string, unknown>> };
	  };

export interface VerbDefinition<Name extends string, Input extends InputSchema, Data extends v.GenericSchema> {
	name: Name;
	title: string;
	summary: string;
	/** The MCP tool's description, for agents: when to call it, what it refuses, what to relay (≤ 2 KiB). */
	mcpDescription?: string;
	/** Its place in the MCP server's instructions; a tool without one is left to its description. */
	mcpGuide?: McpGuide;
	/** The MCP resource that carries its data, if any. */
	mcpResource?: McpResource<keyof Input["entries"] & string>;
	group: VerbGroup;
	input: Input;
	data: Data;
	/**
	 * The error codes this verb can return, besides `invalid_arguments` and
	 * `internal_error`, which every verb can (`IMPLIED_ERROR_CODES`: argument
	 * parsing and the invocation pipeline produce them on every surface). Its
	 * envelope admits only these; a test fails when a mode returns another.
	 */
	errors: readonly ErrorCode[];
	/** The optional envelope fields it fills: `plan` (with `dry_run`), `steps`, `diagnostics`. None when omitted. */
	extras?: readonly ExtraField[];
	envelope: ReturnType<typeof Envelope<Name, Data>>;
	/**
	 * The lock the invocation pipeline takes before the core runs (never for
	 * a dry run): `checkout` for a writer, `repository` for a verb that
	 * changes what every checkout sees. Its errors must include `locked`.
	 */
	lock?: LockKind;
	/** Works outside any repository (`docs`, `help`): the pipeline does not look for one. */
	worksAnywhere?: boolean;
	annotations: AnnotationPreset;
	exposure: Exposure;
	cli: {
		/** Input keys filled from positional words, in order. */
		positionals?: readonly (keyof Input["entries"] & string)[];
		/** The last positional, taking every remaining word (joined by spaces): `help config get`. */
		rest?: keyof Input["entries"] & string;
		/** One-letter aliases for flags. */
		aliases?: Readonly<Partial<Record<keyof Input["entries"] & string, string>>>;
		examples?: readonly string[];
		/**
		 * A flag that turns the verb into a yes/no question answered by exit
		 * status (`impact --has`). Given it, even a usage error fails open
		 * (exit 0, a warning on stderr): `discern impact --has "$UNSET" && test`
		 * must run the tests, not skip them.
		 */
		question?: keyof Input["entries"] & string;
	};
	load: () => Promise<VerbModule<Name, v.InferOutput<Input>, v.InferOutput<Data>>>;
}

export function defineVerb<const Name extends string, Input extends InputSchema, Data extends v.GenericSchema>(
	definition: Omit<VerbDefinition<Name, Input, Data>, "envelope">,
): VerbDefinition<Name, Input, Data> {
	return { ...definition, envelope: Envelope(definition.name, definition.data, definition.errors, definition.extras) };
}

/** The sub-commands under a first word (`config` → config get, set, validate), in the order of `verbs`. */
export function subCommandsIn<Verb extends { name: string }>(verbs: readonly Verb[], family: string): Verb[] {
	return verbs.filter((verb) => verb.name.startsWith(`${family} `));
}

/** A definition as one loosely typed shape, for code that treats every verb alike (projections, tests). */
export interface LooseVerb {
	name: string;
	title: string;
	summary: string;
	mcpDescription?: string;
	mcpGuide?: McpGuide;
	mcpResource?: McpResource;
	group: VerbGroup;
	input: InputSchema;
	data: v.GenericSchema;
	errors: readonly ErrorCode[];
	extras?: readonly ExtraField[];
	envelope: v.GenericSchema;
	lock?: LockKind;
	worksAnywhere?: boolean;
	annotations: AnnotationPreset;
	exposure: Exposure;
	cli: {
		positionals?: readonly string[];
		rest?: string;
		aliases?: Readonly<Record<string, string | undefined>>;
		examples?: readonly string[];
		question?: string;
	};
	load: () => Promise<VerbModule<string, unknown, unknown>>;
}
