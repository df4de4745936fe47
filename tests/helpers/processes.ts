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
