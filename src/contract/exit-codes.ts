import { constants } from "node:os";

/** Process exit statuses. Exit 0 if and only if the result is `ok: true`. */
export const EXIT = {
	ok: 0,
	/** A controlled failure or refusal (`ok: false`). */
	failure: 1,
	/** Usage error: unknown verb or flag, bad value. */
	usage: 2,
	/** Internal error: a crash, with a crash report written. */
	internal: 70,
} as const;

/**
 * Every signal whose default action ends the process and that discern can
 * catch: each one first kills every job tree, then discern exits 128+n.
 * Left out: signals that are ignored by default (CHLD, WINCH, URG, PIPE, which
 * the runtime ignores), that cannot be caught (KILL, STOP) or that report a
 * fault in discern itself (SEGV, BUS, FPE, ILL, TRAP, SYS). Signals the runtime
 * cannot hand to JavaScript (STKFLT, the real-time ones) still end discern at
 * once: its job trees are then found by the next gate in the checkout.
 */
export const ENDING_SIGNALS = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGTERM", "SIGVTALRM", "SIGPROF", "SIGIO", "SIGXCPU"] as const;
export type EndingSignal = (typeof ENDING_SIGNALS)[number];

declare const signalExitBrand: unique symbol;
/** 128 + a signal's number on this platform: SIGHUP 129, SIGINT 130, SIGQUIT 131, SIGTERM 143 … */
export type SignalExit = number & { readonly [signalExitBrand]: true };

export type ExitCode = (typeof EXIT)[keyof typeof EXIT] | SignalExit;

/** The exit status of a process ended by `signal`: 128 + its number here (SIGUSR1 is 10 on Linux, 30 on macOS). */
export function signalExit(signal: EndingSignal): SignalExit {
	return (128 + constants.signals[signal]) as SignalExit;
}

export function isEndingSignal(value: unknown): value is EndingSignal {
	return typeof value === "string" && (ENDING_SIGNALS as readonly string[]).includes(value);
}
