import type { ProgressEvent } from "../contract/context.ts";
import { oneLine } from "../text/terminal.ts";

/** How often the elapsed times are redrawn. */
const TICK_MS = 250;

/**
 * Live progress on stderr while gate jobs run: one line per running job with
 * its stage and elapsed time, above a count of finished jobs. Only on a
 * terminal, only without --json; erased at the end (the result lists every
 * step). Redrawing moves the cursor up over the previous frame and clears it.
 */
export function liveProgress(write: (text: string) => void): { onEvent: (event: ProgressEvent) => void; clear: () => void } {
	const running = new Map<string, { stage: string; since: number }>();
	let done = 0;
	let total = 0;
	let drawn = 0;
	let timer: ReturnType<typeof setInterval> | undefined;

	const erase = () => {
		if (drawn > 0) write(`\u001B[${drawn}A\r\u001B[J`);
		drawn = 0;
	};
	const draw = () => {
		erase();
		const now = performance.now();
		// A label is the config's text: a newline or an escape in it would throw the line count off.
		const lines = [...running].map(([label, job]) => `  ⋯ ${oneLine(label)}  ${job.stage} ${((now - job.since) / 1000).toFixed(1)} s`);
		lines.push(`  ${done}/${total} done`);
		write(`${lines.join("\n")}\n`);
		drawn = lines.length;
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
		clear: () => {
			if (timer) clearInterval(timer);
			timer = undefined;
			erase();
		},
	};
}
