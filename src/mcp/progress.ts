import type { ProgressEvent } from "../contract/context.ts";
import { oneLine } from "../text/terminal.ts";

/**
 * How long a call with a progressToken may go without a progress
 * notification. Clients that reset their request timeout on progress (the
 * SDK's `resetTimeoutOnProgress`) then never time out a gate whose jobs run
 * for minutes; the SPEC asks for at least one every 10 s, and half that
 * leaves room for a loaded machine's late timers.
 */
export const HEARTBEAT_MS = 5_000;

interface ProgressParams {
	progressToken: string | number;
	progress: number;
	total?: number;
	message?: string;
}

export type SendProgress = (notification: { method: "notifications/progress"; params: ProgressParams }) => Promise<void>;

export interface CallProgress {
	/** Job starts and finishes, for the verb's context. */
	onEvent: (event: ProgressEvent) => void;
	/** The call ended or was cancelled: nothing more may be sent for its token. */
	stop: () => void;
}

/** Running jobs named in a heartbeat, at most; the rest are counted. */
const NAMED_JOBS = 5;

/**
 * Progress for one tool call: each job's start and finish, and a heartbeat
 * (elapsed seconds, the jobs running) whenever nothing was sent for
 * `heartbeatMs`.
 *
 * Progress must grow with every notification (MCP). Events count whole
 * units, two per job, so `total` is twice the job count; a heartbeat moves
 * part of the way towards the next unit (½, ⅔, ¾ …) so it grows without
 * ever reaching the next event's value.
 */
export function callProgress(token: string | number, send: SendProgress, heartbeatMs: number): CallProgress {
	const startedAt = Date.now();
	const running = new Map<string, number>();
	let events = 0;
	let beats = 0;
	let total: number | undefined;
	let stopped = false;
	let timer: ReturnType<typeof setTimeout> | undefined;

	const emit = (progress: number, message: string) => {
		if (stopped) return;
		const params: ProgressParams = { progressToken: token, progress, message };
		if (total !== undefined && progress <= total) params.total = total;
		void send({ method: "notifications/progress", params }).catch(() => undefined);
		schedule();
	};
	const schedule = () => {
		clearTimeout(timer);
		timer = setTimeout(beat, heartbeatMs);
		// A forgotten timer must never keep the process alive.
		timer.unref?.();
	};
	const beat = () => {
		beats++;
		emit(events + beats / (beats + 1), heartbeatMessage(startedAt, running));
	};

	schedule();
	return {
		onEvent: (event) => {
			events++;
			beats = 0;
			total = event.total * 2;
			// A label is the config's text; a client may show the message as is.
			const label = oneLine(event.label);
			if (event.type === "start") running.set(label, Date.now());
			else running.delete(label);
			emit(events, event.type === "start" ? `${label} started` : `${label} ${event.outcome} (${event.durationS} s)`);
		},
		stop: () => {
			stopped = true;
			clearTimeout(timer);
		},
	};
}

/** "75 s elapsed; running: test (70 s), lint (12 s)" or "3 s elapsed; no job running". */
function heartbeatMessage(startedAt: number, running: ReadonlyMap<string, number>): string {
	const now = Date.now();
	const elapsed = `${Math.round((now - startedAt) / 1000)} s elapsed`;
	if (running.size === 0) return `${elapsed}; no job running`;
	const jobs = [...running].map(([label, since]) => `${label} (${Math.round((now - since) / 1000)} s)`);
	const more = jobs.length > NAMED_JOBS ? ` and ${jobs.length - NAMED_JOBS} more` : "";
	return `${elapsed}; running: ${jobs.slice(0, NAMED_JOBS).join(", ")}${more}`;
}
