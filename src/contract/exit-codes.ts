/** Process exit statuses. Exit 0 if and only if the result is `ok: true`. */
export const EXIT = {
	ok: 0,
	/** A controlled failure or refusal (`ok: false`). */
	failure: 1,
	/** Usage error: unknown verb or flag, bad value. */
	usage: 2,
	/** Internal error: a crash, with a crash report written. */
	internal: 70,
	interrupted: 130,
	terminated: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
