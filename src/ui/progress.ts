import type { ProgressEvent } from "../contract/context.ts";

/**
 * A live line on stderr while gate jobs run: which jobs are running and how
 * many are done. Only on a terminal, only without --json; cleared at the end.
 */
export function liveProgress(write: (text: string) => void): { onEvent: (event: ProgressEvent) => void; clear: () => void } {
	const running = new Set<string>();
	let done = 0;
	let total = 0;
	let shown = false;
	const draw = () => {
		const names = [...running];
		const list = names.length > 3 ? `${names.slice(0, 3).join(", ")} +${names.length - 3}` : names.join(", ");
		write(`\r\u001B[K${total > 0 ? `[${done}/${total}] ` : ""}running ${list || "…"}`);
		shown = true;
	};
	return {
		onEvent: (event) => {
			if (event.type === "start") running.add(event.label);
			else {
				running.delete(event.label);
				done = event.done;
				total = event.total;
			}
			draw();
		},
		clear: () => {
			if (shown) write("\r\u001B[K");
			shown = false;
		},
	};
}
