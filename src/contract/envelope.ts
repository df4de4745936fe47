import * as v from "valibot";
import { clip } from "../text/clip.ts";
import { type ErrorCode, envelopeErrorCodes } from "./error-codes.ts";

/** One thing a dry run would do. */
export const PlanItem = v.strictObject({
	kind: v.string(),
	label: v.string(),
	disposition: v.picklist(["run", "skip"]),
	note: v.optional(v.string()),
});
export type PlanItem = v.InferOutput<typeof PlanItem>;

export const STEP_OUTCOMES = ["ok", "failed", "skipped", "cancelled"] as const;

/** One thing that ran. */
export const Step = v.strictObject({
	kind: v.string(),
	label: v.string(),
	stage: v.optional(v.string()),
	outcome: v.picklist(STEP_OUTCOMES),
	duration_s: v.number(),
	exit_code: v.optional(v.number()),
	output_path: v.optional(v.string()),
});
export type Step = v.InferOutput<typeof Step>;

/** A normalized failure: a failed job, or one finding parsed from a report. */
export const Diagnostic = v.strictObject({
	tool: v.string(),
	severity: v.picklist(["error", "warning"]),
	message: v.string(),
	reproduce_cmd: v.string(),
	output: v.optional(v.string()),
	truncated: v.optional(v.boolean()),
	output_path: v.optional(v.string()),
	file: v.optional(v.string()),
	line: v.optional(v.number()),
	col: v.optional(v.number()),
	rule: v.optional(v.string()),
});
export type Diagnostic = v.InferOutput<typeof Diagnostic>;

/**
 * The fields beyond message and hints that only some verbs fill: a dry run's
 * `plan` (with `dry_run`), what ran (`steps`) and its `diagnostics`. A verb
 * declares the ones it produces; its envelope has only those, so a tool's
 * output schema does not carry the gate's shapes for a verb that runs nothing.
 */
export const EXTRA_FIELDS = ["plan", "steps", "diagnostics"] as const;
export type ExtraField = (typeof EXTRA_FIELDS)[number];

const ALL_EXTRAS = {
	plan: v.optional(v.array(PlanItem)),
	steps: v.optional(v.array(Step)),
	diagnostics: v.optional(v.array(Diagnostic)),
	dry_run: v.optional(v.boolean()),
};

/** The entries for the declared extras. Typed as all of them (each is optional anyway); the object holds only the declared. */
function extraEntries(extras: readonly ExtraField[]): typeof ALL_EXTRAS {
	const wanted = new Set<string>(extras.includes("plan") ? [...extras, "dry_run"] : extras);
	return Object.fromEntries(Object.entries(ALL_EXTRAS).filter(([key]) => wanted.has(key))) as typeof ALL_EXTRAS;
}

/**
 * The result envelope of one verb: a variant on `ok`, so that `error` is
 * forbidden on success and required (with at least one hint) on failure.
 * `data` may accompany a failure when the verb learned something useful
 * before it refused (doctor's checks, config's issues). `errors` are the
 * codes the verb declares; its `error` admits only those and the implied
 * ones (`IMPLIED_ERROR_CODES`), so each published envelope lists its own.
 * `extras` are the optional fields it fills (`EXTRA_FIELDS`). What `message`
 * and `hints` mean is said once, in the manual and the MCP instructions,
 * not in every tool's schema.
 */
export function Envelope<const Verb extends string, Data extends v.GenericSchema>(
	verb: Verb,
	data: Data,
	errors: readonly ErrorCode[],
	extras: readonly ExtraField[] = [],
) {
	const shared = extraEntries(extras);
	return v.variant("ok", [
		v.strictObject({
			ok: v.literal(true),
			verb: v.literal(verb),
			data: v.optional(data),
			message: v.string(),
			hints: v.optional(v.array(v.string())),
			...shared,
		}),
		v.strictObject({
			ok: v.literal(false),
			verb: v.literal(verb),
			error: v.picklist(envelopeErrorCodes(errors)),
			data: v.optional(data),
			message: v.string(),
			hints: v.pipe(v.array(v.string()), v.minLength(1)),
			...shared,
		}),
	]);
}

interface Extras {
	hints?: string[];
	plan?: PlanItem[];
	steps?: Step[];
	diagnostics?: Diagnostic[];
	dry_run?: boolean;
}

export type Success<Verb extends string, Data> = {
	ok: true;
	verb: Verb;
	data?: Data;
	message: string;
} & Extras;

export type Failure<Verb extends string, Data> = {
	ok: false;
	verb: Verb;
	error: ErrorCode;
	data?: Data;
	message: string;
	hints: string[];
} & Omit<Extras, "hints">;

export type Result<Verb extends string, Data> = Success<Verb, Data> | Failure<Verb, Data>;

/** Any verb's result, as the projections see it. */
export type AnyResult = Result<string, unknown>;

/**
 * The floor under every message and hint: values echoed into them are
 * clipped where they are written (text/clip.ts), and whatever a future
 * message forgets is still cut here rather than sent back in megabytes.
 */
const MESSAGE_LIMIT = 4_000;
const HINT_LIMIT = 2_000;

export function ok<const Verb extends string, Data>(verb: Verb, message: string, data: Data, extras: Extras = {}): Success<Verb, Data> {
	const { hints, ...rest } = extras;
	return { ok: true, verb, message: clip(message, MESSAGE_LIMIT), data, ...rest, ...(hints ? { hints: hints.map((hint) => clip(hint, HINT_LIMIT)) } : {}) };
}

export function fail<const Verb extends string, Data = never>(
	verb: Verb,
	error: ErrorCode,
	message: string,
	hints: readonly [string, ...string[]],
	extras: Omit<Extras, "hints"> & { data?: Data } = {},
): Failure<Verb, Data> {
	return { ok: false, verb, error, message: clip(message, MESSAGE_LIMIT), hints: hints.map((hint) => clip(hint, HINT_LIMIT)), ...extras };
}

/**
 * A refusal computed before the verb knows its own name (project lookup,
 * argument parsing); the caller stamps the verb on it with `asVerb`.
 */
export interface Refusal {
	error: ErrorCode;
	message: string;
	hints: [string, ...string[]];
}

export function asVerb<const Verb extends string>(verb: Verb, refusal: Refusal): Failure<Verb, never> {
	return fail(verb, refusal.error, refusal.message, refusal.hints);
}
