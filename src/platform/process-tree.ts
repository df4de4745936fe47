import { readdir, readFile } from "node:fs/promises";

/**
 * Killing a job means killing everything it started. A job runs as the
 * leader of its own process group, so one signal to the group reaches every
 * descendant that stayed in it; descendants that left the group (setsid,
 * daemonizing tools) are found through /proc by parent links and signalled
 * one by one. Whatever detached itself completely (a double fork, then
 * setsid: its parent gone, itself re-parented to init) is found by a token
 * in its environment that every command's processes inherit. Zombies do
 * not count as alive: in a container whose init does
 * not reap orphans they linger in the group, and waiting for them would
 * turn every kill into a full grace period.
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
		return null; // No /proc (macOS): the process group is all we can reach.
	}
	const table = await Promise.all(
		entries.map(async (entry): Promise<ProcessInfo | null> => {
			const pid = Number(entry);
			if (!Number.isInteger(pid)) return null;
			try {
				const stat = await readFile(`/proc/${pid}/stat`, "utf8");
				// The command name may contain spaces and parentheses: fields resume after the last ")".
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
	const prefix = `${key}=`;
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
				const environ = await readFile(`/proc/${pid}/environ`, "utf8");
				const at = environ.indexOf(prefix);
				if (at < 0) return null;
				const end = environ.indexOf("\0", at);
				return values.has(environ.slice(at + prefix.length, end < 0 ? undefined : end)) ? pid : null;
			} catch {
				return null; // Gone, or not ours to read.
			}
		}),
	);
	return found.filter((pid): pid is number => pid !== null);
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

/** The environment entry every process of one command inherits, so that nothing it starts can hide. */
export interface TreeToken {
	key: string;
	value: string;
}

/** Every process of a tree we can find: by parent links, and by the token when there is one. */
async function members(groupLeader: number, token: TreeToken | undefined): Promise<number[]> {
	const [descendants, carriers] = await Promise.all([descendantsOf(groupLeader), token ? processesCarrying(token.key, new Set([token.value])) : []]);
	return [...new Set([...descendants, ...carriers])];
}

/**
 * TERM the whole tree, give it `graceMs` to go, then KILL whatever is left,
 * including processes that appeared meanwhile.
 */
export async function killTree(groupLeader: number, graceMs: number, token?: TreeToken): Promise<void> {
	const before = await members(groupLeader, token);
	signalTree(groupLeader, before, "SIGTERM");
	const deadline = Date.now() + graceMs;
	while (Date.now() < deadline) {
		if (!(await anyAlive(groupLeader, before))) break;
		await Bun.sleep(25);
	}
	// Only what is alive now: a pid from the first list may have been reused meanwhile.
	signalTree(groupLeader, await members(groupLeader, token), "SIGKILL");
}

/**
 * Whatever finished commands left running (it would outlive discern): one
 * scan of /proc for all their tokens at once.
 */
export async function killCarriers(tokens: readonly TreeToken[]): Promise<void> {
	const key = tokens[0]?.key;
	if (!key) return;
	for (const pid of await processesCarrying(key, new Set(tokens.map((token) => token.value)))) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Gone meanwhile.
		}
	}
}
