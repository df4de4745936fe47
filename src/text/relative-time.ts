/**
 * A moment as a person reads it on a terminal: "4 min ago", "2 h ago",
 * "yesterday". Only text renderings use this; JSON keeps the ISO time, which
 * a program can compare and which does not go stale in a log.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Clock skew between processes (or machines sharing a repository) is not "the future". */
const SKEW_S = 60;

export function relativeTime(iso: string, now: Date): string {
	const then = Date.parse(iso);
	// Something that is not a time is shown as written rather than guessed at.
	if (Number.isNaN(then)) return iso;
	const seconds = Math.round((now.getTime() - then) / 1000);
	if (seconds < -SKEW_S) return iso;
	if (seconds < 10) return "just now";
	if (seconds < MINUTE) return `${seconds} s ago`;
	if (seconds < HOUR) return `${Math.floor(seconds / MINUTE)} min ago`;
	if (seconds < DAY) return `${Math.floor(seconds / HOUR)} h ago`;
	const days = Math.floor(seconds / DAY);
	if (days === 1) return "yesterday";
	if (days < 30) return `${days} days ago`;
	// Beyond a month a count of days is harder to place than the date.
	return new Date(then).toISOString().slice(0, 10);
}
