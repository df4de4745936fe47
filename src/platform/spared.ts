/**
 * Processes discern started in a session of their own so that they finish
 * whatever happens to discern (accept's landing git: a Ctrl-C must not stop
 * it halfway). The tree keeper's sweeps take any child outside discern's own
 * session that no running job owns for a job's leftover; these are not, and
 * no sweep, nor the exit hook, may kill them or what they start.
 */
const spared = new Set<number>();

export function spare(pid: number): void {
	spared.add(pid);
}

export function unspare(pid: number): void {
	spared.delete(pid);
}

/** Is this process, or the session or group it belongs to, one that must be left to finish? */
export function isSpared(stat: { pid: number; session: number; group: number }): boolean {
	return spared.has(stat.pid) || spared.has(stat.session) || spared.has(stat.group);
}
