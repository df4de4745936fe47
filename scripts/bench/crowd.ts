/**
 * A crowd of idle, unrelated processes on the machine (`sleep 600`, started
 * from one shell loop), switched on and off between runs: the gate must not
 * slow down with the machine's process count (it once scanned all of /proc
 * after every phase).
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Probe } from "./measure.ts";

export interface Crowd {
	size: number;
	/** Start or stop the crowd (nothing to do when it already is so); resolves once it is settled. */
	set: (on: boolean) => Promise<void>;
	/** Kill the crowd at once, for a bench that is being interrupted. */
	stopNow: () => void;
}

/** Nothing starts until a benchmark asks for the crowd. */
export function idleCrowd(size: number): Crowd {
	let shell: Bun.Subprocess<"ignore", "pipe", "ignore"> | null = null;
	const stopNow = () => {
		if (shell) for (const pid of childrenOf(shell.pid)) process.kill(pid, "SIGKILL");
	};
	const set = async (on: boolean) => {
		if (on && !shell) {
			await checkRoom(size);
			// The shell waits for its sleeps, so that it reaps them when they are killed: no zombies are left to init.
			const started = Bun.spawn(["sh", "-c", `i=0; while [ "$i" -lt ${size} ]; do sleep 600 >/dev/null 2>&1 & i=$((i+1)); done; echo up; wait`], {
				stdin: "ignore",
				stdout: "pipe",
				stderr: "ignore",
			});
			shell = started;
			// Only the first line: the pipe stays open while the shell waits.
			const { value } = await started.stdout.getReader().read();
			if (!new TextDecoder().decode(value).includes("up")) throw new Error(`the idle crowd did not start (exit ${await started.exited})`);
		} else if (!on && shell) {
			const stopping = shell;
			// Its sleeps one by one, by pid: the shell reaps them and then exits by itself.
			stopNow();
			shell = null;
			await stopping.exited;
		} else {
			return;
		}
		// Let the machine settle after forking or reaping thousands of processes.
		await Bun.sleep(300);
	};
	return { size, set, stopNow };
}

/** A probe that first puts the crowd in the state it needs (untimed). */
export function withCrowd(crowd: Crowd, on: boolean, probe: Probe): Probe {
	return {
		label: `${probe.label}, ${on ? `${crowd.size.toLocaleString("en")} idle processes` : "no crowd"}`,
		run: async () => {
			await crowd.set(on);
			return probe.run();
		},
	};
}

function childrenOf(pid: number): number[] {
	try {
		return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
			readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
		);
	} catch {
		return []; // The shell is gone, and its sleeps with it.
	}
}

/** Refuse up front when the process limit (`ulimit -u`) leaves no room for the crowd and the gate's own processes. */
async function checkRoom(size: number): Promise<void> {
	const limit = /^Max processes\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1] ?? "unlimited";
	const running = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).length;
	if (limit !== "unlimited" && Number(limit) < running + size + 200) {
		throw new Error(`the process limit is ${limit} with ${running} processes running: no room for ${size} idle processes`);
	}
}
