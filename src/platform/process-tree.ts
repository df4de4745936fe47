import { readdir, readFile } from "node:fs/promises";

/**
 * Killing a job means killing everything it started. A job runs as the
 * leader of its own process group, so one signal to the group reaches every
 * descendant that stayed in it; descendants that left the group (setsid,
 * daemonizing tools) are found through /proc by parent links and signalled
 * one by one.
 */
export async function descendantsOf(root: number): Promise<number[]> {
	const children = new Map<number, number[]>();
	let entries: string[];
	try {
		entries = await readdir("/proc");
	} catch {
		return []; // No /proc (macOS): the process group is all we can reach.
	}
	await Promise.all(
		entries.map(async (entry) => {
			const pid = Number(entry);
			if (!Number.isInteger(pid)) return;
			const parent = await parentOf(pid);
			if (parent === null) return;
			const siblings = children.get(parent);
			if (siblings) siblings.push(pid);
			else children.set(parent, [pid]);
		}),
	);
	const found: number[] = [];
	const queue = [root];
	for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
		for (const child of children.get(pid) ?? []) {
			found.push(child);
			queue.push(child);
		}
	}
	return found;
}

async function parentOf(pid: number): Promise<number | null> {
	try {
		const stat = await readFile(`/proc/${pid}/stat`, "utf8");
		// The command name may contain spaces and parentheses: fields resume after the last ")".
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		const parent = Number(fields[1]);
		return Number.isInteger(parent) ? parent : null;
	} catch {
		return null;
	}
}

/** Send `signal` to a process group and to every known descendant; a process already gone is fine. */
export function signalTree(groupLeader: number, descendants: readonly number[], signal: NodeJS.Signals): void {
	for (const target of [-groupLeader, ...descendants]) {
		try {
			process.kill(target, signal);
		} catch {
			// ESRCH: already gone.
		}
	}
}

/** Is any process of this group still alive? */
export function groupAlive(groupLeader: number): boolean {
	try {
		process.kill(-groupLeader, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * TERM the whole tree, give it `graceMs` to go, then KILL whatever is left,
 * including descendants that appeared meanwhile.
 */
export async function killTree(groupLeader: number, graceMs: number): Promise<void> {
	const before = await descendantsOf(groupLeader);
	signalTree(groupLeader, before, "SIGTERM");
	const deadline = Date.now() + graceMs;
	while (Date.now() < deadline) {
		if (!groupAlive(groupLeader) && !before.some(alive)) return;
		await Bun.sleep(25);
	}
	const after = await descendantsOf(groupLeader);
	signalTree(groupLeader, [...new Set([...before, ...after])], "SIGKILL");
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}
