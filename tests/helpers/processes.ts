import { readdir, readFile } from "node:fs/promises";

/**
 * Processes whose environment carries `KEY=value`. Every job discern starts
 * inherits DISCERN_ROOT, so this finds a fixture's jobs and anything they
 * spawned, however they detached.
 */
export async function processesWithEnv(key: string, value: string): Promise<number[]> {
	const needle = `${key}=${value}\0`;
	const found: number[] = [];
	for (const entry of await readdir("/proc")) {
		const pid = Number(entry);
		if (!Number.isInteger(pid) || pid === process.pid) continue;
		try {
			const environ = await readFile(`/proc/${pid}/environ`, "utf8");
			if (!environ.includes(needle)) continue;
			// A zombie has exited already; it is not a survivor.
			const stat = await readFile(`/proc/${pid}/stat`, "utf8");
			if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
			found.push(pid);
		} catch {
			// Gone meanwhile, or not ours to read.
		}
	}
	return found;
}

/** Wait briefly for stragglers to be reaped, then report any that survive. */
export async function survivors(root: string, waitMs = 1000): Promise<number[]> {
	const deadline = Date.now() + waitMs;
	let alive = await processesWithEnv("DISCERN_ROOT", root);
	while (alive.length > 0 && Date.now() < deadline) {
		await Bun.sleep(50);
		alive = await processesWithEnv("DISCERN_ROOT", root);
	}
	return alive;
}

/**
 * Makes command-line markers unique to this test process (`sleep 1234.${TAG}51`):
 * the same test may run at the same time from another checkout on the machine.
 */
export const TAG = String(process.pid).padStart(7, "0");

/**
 * Live processes whose command line contains `fragment`, not followed by
 * another digit: for processes that cleared their environment (`env -i`),
 * which the DISCERN_ROOT check cannot see. Give each test its own marker
 * (`sleep 1234.${TAG}51`).
 */
export async function processesWithCommandLine(fragment: string): Promise<number[]> {
	const pattern = new RegExp(`${fragment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?!\\d)`);
	const found: number[] = [];
	for (const entry of await readdir("/proc")) {
		const pid = Number(entry);
		if (!Number.isInteger(pid) || pid === process.pid) continue;
		try {
			const cmdline = (await readFile(`/proc/${pid}/cmdline`, "utf8")).replaceAll("\0", " ");
			if (!pattern.test(cmdline)) continue;
			const stat = await readFile(`/proc/${pid}/stat`, "utf8");
			if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
			found.push(pid);
		} catch {
			// Gone meanwhile.
		}
	}
	return found;
}

/** Wait briefly for processes matching `fragment` to go, then report any that survive. */
export async function survivorsByCommandLine(fragment: string, waitMs = 1000): Promise<number[]> {
	const deadline = Date.now() + waitMs;
	let alive = await processesWithCommandLine(fragment);
	while (alive.length > 0 && Date.now() < deadline) {
		await Bun.sleep(50);
		alive = await processesWithCommandLine(fragment);
	}
	return alive;
}

/** This process's children that have exited but were never reaped. */
export async function zombieChildren(): Promise<number[]> {
	const zombies: number[] = [];
	for (const task of await readdir("/proc/self/task")) {
		const children = (await readFile(`/proc/self/task/${task}/children`, "utf8")).split(" ").filter(Boolean).map(Number);
		for (const pid of children) {
			const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
			if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) zombies.push(pid);
		}
	}
	return zombies;
}

/**
 * Shell lines (for a hook or a job) that start `command` in a session of its own, orphaned (a double fork), and end
 * only once it runs as `command` (its pid in `flag`, its command line showing the last word of `command`): a test of
 * what finds such a process must not race its setsid (the kill of the group alone would pass) nor its exec (a scan of
 * /proc that reads it mid-exec can miss it). Neither argument holds a single quote.
 */
export function detachedDaemon(command: string, flag: string): string {
	const word = command.split(" ").at(-1) ?? command;
	return [
		`( setsid sh -c 'echo $$ > "$0"; exec ${command}' '${flag}' </dev/null >/dev/null 2>&1 & )`,
		`until [ -s '${flag}' ] && grep -q -- '${word}' "/proc/$(cat '${flag}')/cmdline" 2>/dev/null; do sleep 0.02; done`,
	].join("\n");
}
