import type { VerbContext } from "../contract/context.ts";
import type { AnyResult } from "../contract/envelope.ts";
import { watchGit } from "../git/run.ts";
import { standardOut } from "../platform/streams.ts";
import { isCi, wantsColor } from "../render/style.ts";
import { cleanText, quoteName } from "../text/terminal.ts";
import { VERSION } from "../version.ts";
import { describeGitCall, describeNarration, type Loudness, narrateFinish, openNarrator } from "./narrate.ts";

export interface SessionOptions {
	json: boolean;
	globals: { quiet: boolean; verbose: boolean };
	/** The CLI's streams and what they are connected to. */
	io: {
		env: Readonly<Record<string, string | undefined>>;
		isTTY: boolean;
		stdinIsTTY?: boolean;
		stderrIsTTY?: boolean;
		sharedOutput?: boolean;
		stderr: (text: string) => void;
	};
	verb: string;
	cwd: string;
	/** A result as text, for the preview shown before a question. */
	render: (result: AnyResult) => string;
}

/** What a person at the terminal sees around one verb run, and the hooks that make it. */
export interface Session {
	/** The CLI's share of the verb's context: progress, narration, consent. */
	context: Pick<VerbContext, "progress" | "narrate" | "confirm">;
	/** A preview was shown before a question: the result need not show it again. */
	previewShown: () => boolean;
	/**
	 * Labels of the jobs whose finished line went to the place the result goes
	 * too (a merged CI log): the result need not list them a second time.
	 */
	narratedSteps: () => ReadonlySet<string>;
	/** Stop the live progress, unhook git, and let the last narration out. */
	close: () => Promise<void>;
}

const NONE: ReadonlySet<string> = new Set();
const SILENT: Session = { context: {}, previewShown: () => false, narratedSteps: () => NONE, close: async () => undefined };

/**
 * The terminal around a CLI run. With --json nothing at all (stdout is the
 * envelope, stderr stays empty). Otherwise: on a terminal, the live progress
 * line; without one (a CI log), one line per finished job; with --verbose,
 * what was loaded and run; on an interactive terminal, consent asked with
 * consola's prompt. `--quiet` silences narration and progress, never a prompt.
 */
export async function openSession(options: SessionOptions): Promise<Session> {
	if (options.json) return SILENT;
	const { io } = options;
	const loudness: Loudness = options.globals.quiet ? "quiet" : options.globals.verbose ? "verbose" : "normal";
	const stderrIsTTY = io.stderrIsTTY ?? false;
	const live = stderrIsTTY && loudness !== "quiet" ? (await import("./progress.ts")).liveProgress(io.stderr) : null;
	const narrator = openNarrator({ write: live ? live.above : io.stderr, color: wantsColor(io.env, stderrIsTTY), loudness });
	const context: Session["context"] = {};
	const narrated = new Set<string>();
	if (live) context.progress = live.onEvent;
	else if (loudness !== "quiet") {
		context.progress = (event) => {
			if (event.type !== "finish") return;
			narrateFinish(narrator, event);
			if (io.sharedOutput) narrated.add(event.label);
		};
	}
	if (loudness === "verbose") {
		narrator.detail(`discern ${VERSION}: ${options.verb} in ${quoteName(options.cwd)}`);
		context.narrate = (event) => narrator.detail(describeNarration(event));
		watchGit((call) => narrator.detail(describeGitCall(call)));
	}
	let shown = false;
	// Never a prompt without a person: stdin and stdout terminals, not a build machine.
	if (io.stdinIsTTY && io.isTTY && !isCi(io.env)) {
		context.confirm = async (question, preview) => {
			live?.clear();
			// main.ts writes stdout once, at the end: the preview must be on screen before the question.
			standardOut().write(`${cleanText(options.render(preview), { keepColor: true }).trimEnd()}\n\n`);
			shown = true;
			return (await narrator.ask(question)) === true;
		};
	}
	return {
		context,
		previewShown: () => shown,
		narratedSteps: () => narrated,
		close: async () => {
			live?.clear();
			if (loudness === "verbose") watchGit(undefined);
			await narrator.settled();
		},
	};
}
