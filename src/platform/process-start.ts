import { readFileSync } from "node:fs";

/**
 * When a process started, as an opaque token: with its PID it names one
 * process for good, where a PID alone is reused once the process is gone.
 * A lock records it so that a PID that now belongs to someone else is not
 * mistaken for the holder.
 *
 * - Linux: the boot id and field 22 of `/proc/<pid>/stat` (start time in
 *   clock ticks since boot; the boot id keeps a reboot from repeating it).
 * - Elsewhere (macOS, the BSDs): `ps -o lstart=`, to the second. A PID
 *   reused within the same second goes unnoticed there.
 * - Null when neither answers (no such process, no `ps`): the caller then
 *   judges by the PID alone, as before start times were recorded.
 */
export function processStart(pid: number): string | null {
	if (!Number.isSafeInteger(pid) || pid <= 0) return null;
	return process.platform === "linux" ? linuxStart(pid) : psStart(pid);
}

function linuxStart(pid: number): string | null {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// The command name (field 2) may hold spaces and parentheses: count fields after its last ")".
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		const ticks = fields[22 - 3];
		if (ticks === undefined || !/^\d+$/.test(ticks)) return null;
		return `${bootId()}:${ticks}`;
	} catch {
		return null;
	}
}

let boot: string | undefined;

function bootId(): string {
	if (boot === undefined) {
		try {
			boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
		} catch {
			boot = "";
		}
	}
	return boot;
}

function psStart(pid: number): string | null {
	try {
		const ps = Bun.spawnSync(["ps", "-o", "lstart=", "-p", String(pid)], {
			stdin: "ignore",
			stdout: "pipe",
			stderr: "ignore",
			env: { PATH: "/bin:/usr/bin", LC_ALL: "C" },
		});
		const text = ps.stdout.toString().trim();
		return ps.exitCode === 0 && text !== "" ? `ps:${text}` : null;
	} catch {
		return null;
	}
}
