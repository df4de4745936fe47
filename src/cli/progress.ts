import { clearScreenDown, cursorTo, moveCursor } from "node:readline";
import { Writable } from "node:stream";
import type { ProgressEvent } from "../contract/context.ts";
import { oneLine } from "../text/terminal.ts";

/** How often the elapsed times are redrawn. */
const TICK_MS = 250;

export interface LiveProgress {
	onEvent: (event: ProgressEvent) => void;
	/** Print a finished line (narration) above the live frame, which is redrawn below it. */
	above: (text: string) => void;
	clear: () => void;
}

/**
 * Live progress on stderr while gate jobs run: one line per running job with
 * its stage and elapsed time, above a count of finished jobs. Only on a
 * terminal, only without --json; erased at the end (the result lists every
 * step). Redrawing moves the cursor up over the previous frame and clears it,
 * with node:readline's cursor functions (no escape codes written by hand);
 * they write to a stream, so `terminal` hands what they write to `write`, in order.
 */
export function liveProgress(write: (text: string) => void): LiveProgress {
	const terminal = new Writable({
		decodeStrings: false,
		write: (chunk, _encoding, done) => {
			write(String(chunk));
			done();
		},
	});
	const running = new Map<string, { stage: string; since: number }>();
	let done = 0;
	let total = 0;
	let drawn = 0;
	let timer: ReturnType<typeof setInterval> | undefined;

	const erase = () => {
		if (drawn === 0) return;
		moveCursor(terminal, 0, -drawn);
		cursorTo(terminal, 0);
		clearScreenDown(terminal);
		drawn = 0;
	};
	const frame = () => {
		const now = performance.now();
		// A label is the config's text: a newline or an escape in it would throw the line count off.
		const lines = [...running].map(([label, job]) => `  ⋯ ${oneLine(label)}  ${job.stage} ${((now - job.since) / 1000).toFixed(1)} s`);
		lines.push(`  ${done}/${total} done`);
		terminal.write(`${lines.join("\n")}\n`);
		drawn = lines.length;
	};
	const draw = () => {
		erase();
		frame();
	};
	return {
		onEvent: (event) => {
			if (event.type === "start") running.set(event.label, { stage: event.stage, since: performance.now() });
			else running.delete(event.label);
			done = event.done;
			total = event.total;
			timer ??= setInterval(draw, TICK_MS);
			timer.unref?.();
			draw();
		},
		above: (text) => {
			const redraw = drawn > 0;
			erase();
			terminal.write(text);
			if (redraw) frame();
		},
		clear: () => {
			if (timer) clearInterval(timer);
			timer = undefined;
			erase();
		},
	};
}
