import type { ConsolaInstance, ConsolaReporter, LogObject, LogType } from "consola";
import type { Narration, ProgressEvent } from "../contract/context.ts";
import type { GitCall } from "../git/run.ts";
import { standardErr } from "../platform/streams.ts";
import { MARK, paint, type Style } from "../render/style.ts";
import { clip } from "../text/clip.ts";
import { oneLine, quoteName } from "../text/terminal.ts";

/** How loud narration is: `--quiet` silences it, `--verbose` adds what was loaded and run. */
export type Loudness = "quiet" | "normal" | "verbose";

/** The kinds of line narration writes; each is a consola log type with its own mark. */
type Kind = "success" | "fail" | "warn" | "info" | "verbose";

export interface Narrator {
	/** A line a person watching wants (a finished job in a CI log); silent only under --quiet. */
	say: (kind: Exclude<Kind, "verbose">, text: string) => void;
	/** A --verbose line: what was loaded and run. */
	detail: (text: string) => void;
	/** consola's yes/no prompt, on the terminal (stdin and stdout); null when the person cancels it. */
	ask: (question: string) => Promise<boolean | null>;
	/** Resolves once every line said so far is written. */
	settled: () => Promise<void>;
}

const MARKS: Readonly<Record<Kind, readonly [string, Style]>> = {
	success: [MARK.ok, "green"],
	fail: [MARK.fail, "red"],
	warn: [MARK.warn, "yellow"],
	info: ["·", "cyan"],
	verbose: ["·", "dim"],
};

/**
 * The one consola instance that narrates on stderr. consola loads on the
 * first line that passes the loudness (it costs milliseconds that `status`
 * and `--version` must not pay); lines said before it is ready wait in order.
 * discern's own reporter writes one plain line per log (a mark, the text):
 * no dates or badges in a CI log, and color decided for stderr, not stdout.
 */
export function openNarrator(options: { write: (text: string) => void; color: boolean; loudness: Loudness }): Narrator {
	const { write, color, loudness } = options;
	let logger: ConsolaInstance | undefined;
	let loading: Promise<ConsolaInstance> | undefined;
	const waiting: [Kind, string][] = [];

	const reporter: ConsolaReporter = {
		log: (entry: LogObject) => {
			const [mark, style] = MARKS[kindOf(entry.type)];
			const text = entry.args.map(String).join(" ");
			write(`${entry.type === "verbose" ? paint(`${mark} ${text}`, style, color) : `${paint(mark, style, color)} ${text}`}\n`);
		},
	};
	const load = (): Promise<ConsolaInstance> => {
		loading ??= import("consola").then(({ createConsola, LogLevels }) => {
			const level = loudness === "quiet" ? LogLevels.silent : loudness === "verbose" ? LogLevels.verbose : LogLevels.info;
			// Nothing of consola's own may reach stdout: it belongs to the result.
			const instance = createConsola({ stdout: standardErr(), stderr: standardErr(), reporters: [reporter], level, throttle: 0 });
			for (const [kind, text] of waiting.splice(0)) instance[kind](text);
			logger = instance;
			return instance;
		});
		return loading;
	};
	const log = (kind: Kind, text: string) => {
		if (logger) logger[kind](text);
		else {
			waiting.push([kind, text]);
			void load();
		}
	};
	return {
		say: (kind, text) => {
			if (loudness !== "quiet") log(kind, text);
		},
		detail: (text) => {
			if (loudness === "verbose") log("verbose", text);
		},
		ask: async (question) => (await load()).prompt(question, { type: "confirm", initial: false, cancel: "null" }),
		settled: async () => {
			if (loading) await loading;
		},
	};
}

function kindOf(type: LogType): Kind {
	return type === "success" || type === "fail" || type === "warn" || type === "verbose" ? type : "info";
}

/** "lint  check  ok  0.31 s", with the mark of its outcome: one line per finished job in a CI log. */
export function narrateFinish(narrator: Narrator, event: Extract<ProgressEvent, { type: "finish" }>): void {
	const kind = event.outcome === "ok" ? "success" : event.outcome === "failed" ? "fail" : event.outcome === "cancelled" ? "warn" : "info";
	narrator.say(kind, `${oneLine(event.label)}  ${event.stage}  ${event.outcome}  ${event.durationS.toFixed(2)} s  (${event.done}/${event.total})`);
}

/** A core's narration as a --verbose line. Config text (a command, a label) is foreign: one clean line, clipped. */
export function describeNarration(event: Narration): string {
	if (event.type === "config") return `config ${quoteName(event.path)} (${event.state})`;
	return `${oneLine(event.label)} (${event.stage}) $ ${clip(oneLine(event.command))}`;
}

/** `git status --porcelain=v2 -z  1.8 ms`, with the exit code when it is not 0. */
export function describeGitCall(call: GitCall): string {
	const exit = call.exitCode === 0 ? "" : `  exit ${call.exitCode}`;
	return `git ${clip(call.args.map(quoteName).join(" "))}  ${call.ms.toFixed(1)} ms${exit}`;
}
