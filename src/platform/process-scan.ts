import { readdir, readFile } from "node:fs/promises";
import { allPids, commandLine, entryOf, type ProcStat, readStat } from "./proc.ts";

/**
 * The fallback for finding a job's processes where discern cannot be a child
 * subreaper (see subreaper.ts): scan all of /proc. Descendants that left the
 * job's process group are found by parent links; a daemon that detached
 * completely (a double fork, then setsid: its parent gone, itself
 * re-parented to init) by a token in its environment that every process of a
 * command inherits. What both clears its environment and loses its parent
 * escapes this scan: only the subreaper finds it. Each scan reads every
 * process on the machine (milliseconds per thousand), so the subreaper is the
 * hot path and this is not. Without /proc (macOS) only the process group is
 * reached. Zombies do not count as alive: in a container whose init does not
 * reap orphans they linger, and waiting for them would turn every kill into
 * a full grace period.
 */
interface ProcessInfo {
	pid: number;
	parent: number;
	group: number;
	zombie: boolean;
}

async function processTable(): Promise<ProcessInfo[] | null> {
	let entries: string[];
	try {
		entries = await readdir("/proc");
	} catch {
		return null;
	}
	const table = await Promise.all(
		entries.map(async (entry): Promise<ProcessInfo | null> => {
			const pid = Number(entry);
			if (!Number.isInteger(pid)) return null;
			try {
				const stat = await readFile(`/proc/${pid}/stat`, "latin1");
				const [state, parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
				return { pid, parent: Number(parent), group: Number(group), zombie: state === "Z" || state === "X" };
			} catch {
				return null; // Gone meanwhile.
			}
		}),
	);
	return table.filter((info): info is ProcessInfo => info !== null);
}

/** Live descendants of `root` by parent links, whatever their process group. */
export async function descendantsOf(root: number): Promise<number[]> {
	const table = await processTable();
	if (!table) return [];
	const children = new Map<number, number[]>();
	for (const info of table) {
		if (info.zombie) continue;
		const siblings = children.get(info.parent);
		if (siblings) siblings.push(info.pid);
		else children.set(info.parent, [info.pid]);
	}
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

/** Live processes whose environment carries `key=<one of values>` (empty without /proc). */
export async function processesCarrying(key: string, values: ReadonlySet<string>): Promise<number[]> {
	if (values.size === 0) return [];
	let entries: string[];
	try {
		entries = await readdir("/proc");
	} catch {
		return [];
	}
	const found = await Promise.all(
		entries.map(async (entry) => {
			const pid = Number(entry);
			if (!Number.isInteger(pid) || pid === process.pid) return null;
			try {
				const value = entryOf(await readFile(`/proc/${pid}/environ`, "latin1"), key);
				return value !== null && values.has(value) ? pid : null;
			} catch {
				return null; // Gone, or not ours to read.
			}
		}),
	);
	return found.filter((pid): pid is number => pid !== null);
}

/** Send `signal` to each target (a negative number is a process group); a process already gone is fine. */
export function signalAll(targets: readonly number[], signal: NodeJS.Signals): void {
	for (const target of targets) {
		try {
			process.kill(target, signal);
		} catch {
			// ESRCH: already gone.
		}
	}
}

/** Does the process group led by `groupLeader` still run anything (a zombie leader runs nothing; its group may)? */
export function groupAlive(groupLeader: number): Promise<boolean> {
	return anyAlive(groupLeader, []);
}

/** Is any live (non-zombie) member of the group, or any of `pids`, still running? */
async function anyAlive(groupLeader: number, pids: readonly number[]): Promise<boolean> {
	const table = await processTable();
	if (!table) {
		try {
			process.kill(-groupLeader, 0);
			return true;
		} catch {
			return false;
		}
	}
	const watched = new Set(pids);
	return table.some((info) => !info.zombie && (info.group === groupLeader || watched.has(info.pid)));
}

/** Every process of a tree the scan can find: by parent links, and by the token. */
async function members(groupLeader: number, key: string, value: string): Promise<number[]> {
	const [descendants, carriers] = await Promise.all([descendantsOf(groupLeader), processesCarrying(key, new Set([value]))]);
	return [...new Set([...descendants, ...carriers])];
}

/** TERM the whole tree, give it `graceMs` to go, then KILL whatever is left, including processes that appeared meanwhile. */
export async function killTreeByScan(groupLeader: number, graceMs: number, key: string, value: string): Promise<void> {
	const before = await members(groupLeader, key, value);
	signalAll([-groupLeader, ...before], "SIGTERM");
	const deadline = Date.now() + graceMs;
	while (Date.now() < deadline) {
		if (!(await anyAlive(groupLeader, before))) break;
		await Bun.sleep(25);
	}
	// Only what is alive now: a pid from the first list may have been reused meanwhile.
	signalAll([-groupLeader, ...(await members(groupLeader, key, value))], "SIGKILL");
}

/** A process killed by `killMatching`, named as it was just before. */
export interface KilledProcess {
	pid: number;
	command: string;
}

/**
 * SIGKILL every process on the machine that `belongs` says is to go, scanning
 * again until none is left (a process may fork while it is being killed);
 * returns what was killed. A full scan: for rare paths only (cleaning up after
 * a discern that was itself killed).
 */
export async function killMatching(belongs: (stat: ProcStat) => boolean): Promise<KilledProcess[]> {
	const killed = new Map<number, KilledProcess>();
	for (let round = 0; round < 10; round++) {
		const targets = (allPids() ?? []).flatMap((pid) => {
			if (pid === process.pid) return [];
			const stat = readStat(pid);
			return stat && !stat.zombie && belongs(stat) ? [stat] : [];
		});
		if (targets.length === 0) break;
		for (const target of targets) if (!killed.has(target.pid)) killed.set(target.pid, { pid: target.pid, command: commandLine(target.pid) });
		signalAll(
			targets.map((target) => target.pid),
			"SIGKILL",
		);
		await Bun.sleep(10);
	}
	return [...killed.values()];
}
