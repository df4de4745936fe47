import type { CallerContext, VerbContext } from "./contract/context.ts";
import { type AnyResult, asVerb, fail } from "./contract/envelope.ts";
import { type SurfaceWords, wordsFor } from "./contract/refer.ts";
import type { LooseVerb, VerbModule } from "./contract/verb.ts";
import { readHeadFiles } from "./git/head-files.ts";
import { forgetPersonSettings } from "./git/person-config.ts";
import { locateRepository, type RepositoryLocation } from "./git/repository.ts";
import { writeCrashReport } from "./platform/crash-report.ts";
import { recordInLogbook } from "./state/logbook-record.ts";
import { takeLock } from "./state/verb-lock.ts";
import { endSentence } from "./text/sentence.ts";
import { cleanText } from "./text/terminal.ts";

/**
 * The one way a verb runs, from the CLI and from MCP alike: locate the
 * repository, take the verb's declared lock, run its core with the caller's
 * abort signal, the verbs of this build and their words for the caller's
 * surface (`ctx.verbs`, `ctx.say`, `ctx.action`), record the logbook line,
 * and turn a thrown error (a bug) into an `internal_error` result with a
 * crash report, so that a CLI run exits 70 and one failed MCP call never
 * takes the server down. The surfaces only parse input before and render
 * after.
 */
export interface Invoked {
	result: AnyResult;
	/** The verb's loaded code; null when even loading it failed. */
	module: VerbModule<string, unknown, unknown> | null;
	/** Set when the core threw: where the crash report is (null if it could not be written). */
	crash?: { report: string | null };
}

export async function invoke(
	verb: LooseVerb,
	caller: CallerContext,
	input: unknown,
	crashContext: readonly string[] = [verb.name],
	/** The verb's code when the surface loaded it already (the CLI renders a prompt's preview with it). */
	loaded?: VerbModule<string, unknown, unknown>,
): Promise<Invoked> {
	const startedAt = new Date();
	// What git's configuration said is read again for each run (an MCP server lives across many).
	forgetPersonSettings();
	let module: VerbModule<string, unknown, unknown> | null = loaded ?? null;
	let repository: RepositoryLocation | undefined;
	// Where the run started, for the logbook: read before the core can move HEAD.
	let where: Promise<{ branch: string | null; head: string | null }> = Promise.resolve({ branch: null, head: null });
	try {
		// The words are rendered for the caller's surface here, whatever words its context held already.
		const ctx: Omit<VerbContext, "repository"> = { ...caller, ...(await surfaceWords(caller.surface)) };
		repository = verb.worksAnywhere ? undefined : await locate(ctx);
		if (repository) where = readHeadFiles(repository.gitDir, repository.commonDir);
		module ??= await verb.load();
		const result = await runLocked(verb, module, { ...ctx, ...(repository ? { repository } : {}) }, input);
		await recordInLogbook(result, repository, { ...(await where), surface: caller.surface, startedAt });
		return { result, module };
	} catch (error) {
		const report = writeCrashReport(error, crashContext);
		const place = report ? ` A crash report is at ${report}.` : "";
		const result = fail(
			verb.name,
			"internal_error",
			`discern hit an internal error in ${verb.name}: ${endSentence(error instanceof Error ? error.message : String(error))}${place}`,
			["This is a bug in discern; please report it with the crash report."],
		);
		await recordInLogbook(result, repository, { ...(await where.catch(() => ({ branch: null, head: null }))), surface: caller.surface, startedAt });
		return { result, module, crash: { report } };
	}
}

/** The words per surface, made once: the registry does not change while discern runs. */
const WORDS = new Map<VerbContext["surface"], SurfaceWords>();

/**
 * The verbs of this build and their words for `surface`. Cores and the modules under them never read the
 * registry: it comes to them from here. It loads here, not at the top: the CLI answers --version without
 * it (every verb's definition and schemas are the bulk of start-up); by the time a verb runs, it is loaded.
 */
async function surfaceWords(surface: VerbContext["surface"]): Promise<SurfaceWords> {
	let words = WORDS.get(surface);
	if (!words) {
		const { LOOSE_VERBS } = await import("./registry.ts");
		words = wordsFor(surface, LOOSE_VERBS);
		WORDS.set(surface, words);
	}
	return words;
}

/** The repository around `cwd`, or none: a core that needs one refuses in its own words. */
async function locate(ctx: CallerContext): Promise<RepositoryLocation | undefined> {
	const located = await locateRepository(ctx.cwd, ctx.env).catch(() => null);
	return located?.found ? located.repository : undefined;
}

/** The core, under its declared lock when it has one and this is no dry run; a busy lock refuses, changing nothing. */
async function runLocked(verb: LooseVerb, module: VerbModule<string, unknown, unknown>, ctx: VerbContext, input: unknown): Promise<AnyResult> {
	const dryRun = (input as { dry_run?: unknown } | null)?.dry_run === true;
	if (!verb.lock || dryRun || !ctx.repository) return module.run(ctx, input);
	const locked = takeLock(verb.lock, ctx.repository, verb.name);
	if (!locked.ok) return asVerb(verb.name, locked.refusal);
	try {
		return await module.run(ctx, input);
	} finally {
		locked.lock.release();
	}
}

/** How a surface marks the parts of a text rendering (the CLI paints; MCP text stays plain). */
export interface TextStyle {
	failure: (message: string, error: string) => string;
	hint: (hint: string) => string;
	/** A success's message even when the rendering already says it all (an agent reads the text alone). */
	alwaysMessage: boolean;
	keepColor: boolean;
}

const PLAIN: TextStyle = {
	failure: (message, error) => `${message} (${error})`,
	hint: (hint) => `- ${hint}`,
	alwaysMessage: true,
	keepColor: false,
};

/**
 * A result as text, in the same order on every surface: the verb's own
 * rendering (steps, findings, …), then the message, then every hint.
 * Foreign text a core let through loses its terminal sequences here
 * (discern's own colors survive when the style keeps them).
 */
export function composeText(result: AnyResult, body: string, style: TextStyle = PLAIN): string {
	const lines: string[] = [];
	const shown = cleanText(body, { keepColor: style.keepColor });
	const message = cleanText(result.message);
	if (shown.trim() !== "") lines.push(shown.trimEnd());
	if (result.ok) {
		if (shown.trim() === "" || result.dry_run || (style.alwaysMessage && !shown.includes(message))) lines.push(message);
	} else {
		if (lines.length > 0) lines.push("");
		lines.push(style.failure(message, result.error));
	}
	for (const hint of result.hints ?? []) lines.push(style.hint(cleanText(hint)));
	return lines.join("\n");
}
