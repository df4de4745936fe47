import { readdirSync, readFileSync } from "node:fs";

/**
 * Reading Linux's /proc, synchronously: these reads take microseconds, and
 * an exit hook (which cannot wait) uses them too. Every reader answers
 * "nothing" for a process that is gone or not ours to read, and on systems
 * without /proc.
 */
export interface ProcStat {
	pid: number;
	parent: number;
	group: number;
	session: number;
	/** Start time in clock ticks since boot: with the pid, it names one process (pids are reused). */
	start: number;
	/** Exited but not yet reaped by its parent: it runs nothing and holds nothing but its pid. */
	zombie: boolean;
}

/** A process named so that a reused pid does not pass for it. */
export interface ProcessRef {
	pid: number;
	start: number;
}

export function readStat(pid: number): ProcStat | null {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, "latin1");
	} catch {
		return null;
	}
	// The command name may hold spaces and parentheses: the fields resume after the last ")".
	// They are numbered from 1 (pid); after the name come state (3), ppid (4), pgrp (5), session (6) … starttime (22).
	const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
	const state = fields[0] ?? "";
	return {
		pid,
		parent: Number(fields[1]),
		group: Number(fields[2]),
		session: Number(fields[3]),
		start: Number(fields[19]),
		zombie: state === "Z" || state === "X",
	};
}

/** Is this exact process (pid and start time) still running? */
export function stillRunning(ref: ProcessRef): boolean {
	const stat = readStat(ref.pid);
	return stat !== null && !stat.zombie && stat.start === ref.start;
}

/**
 * The children of `pid` (or of discern itself), from every one of its
 * threads: a child belongs to the thread that forked it, and the runtime runs
 * several. Linux documents this list as exact only while the children are
 * stopped; callers therefore look again until nothing is left.
 */
export function childrenOf(pid: number | "self"): number[] {
	const found: number[] = [];
	let tasks: string[];
	try {
		tasks = readdirSync(`/proc/${pid}/task`);
	} catch {
		return found;
	}
	for (const task of tasks) {
		let text: string;
		try {
			text = readFileSync(`/proc/${pid}/task/${task}/children`, "latin1");
		} catch {
			continue;
		}
		for (const word of text.split(" ")) if (word !== "") found.push(Number(word));
	}
	return found;
}

/** Does this kernel list children (CONFIG_PROC_CHILDREN)? Without it, only a full scan of /proc finds descendants. */
export function canListChildren(): boolean {
	try {
		const [task] = readdirSync("/proc/self/task");
		if (task === undefined) return false;
		readFileSync(`/proc/self/task/${task}/children`);
		return true;
	} catch {
		return false;
	}
}

/** Every descendant of `root` that its parent links reach (not `root` itself), as stats. */
export function subtreeOf(root: number): ProcStat[] {
	const found: ProcStat[] = [];
	const queue = childrenOf(root);
	const seen = new Set<number>([root]);
	for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
		if (seen.has(pid)) continue;
		seen.add(pid);
		const stat = readStat(pid);
		if (!stat) continue;
		found.push(stat);
		queue.push(...childrenOf(pid));
	}
	return found;
}

/** The value of `key` in a process's environment, or null. */
export function environValue(pid: number, key: string): string | null {
	try {
		return entryOf(readFileSync(`/proc/${pid}/environ`, "latin1"), key);
	} catch {
		return null;
	}
}

/** The value of `key` in an environment block as /proc shows it (NUL-separated `KEY=value` entries). */
export function entryOf(environ: string, key: string): string | null {
	const entry = `${key}=`;
	let from = entry.length;
	if (!environ.startsWith(entry)) {
		const at = environ.indexOf(`\0${entry}`);
		if (at < 0) return null;
		from += at + 1;
	}
	const end = environ.indexOf("\0", from);
	return environ.slice(from, end < 0 ? undefined : end);
}

/** Every pid on the system (null without /proc). Costly on a busy machine: only for rare paths. */
export function allPids(): number[] | null {
	try {
		return readdirSync("/proc")
			.map(Number)
			.filter((pid) => Number.isInteger(pid));
	} catch {
		return null;
	}
}

/** A short, printable name for a process ("sleep 100"), for messages: control characters become "?". */
export function commandLine(pid: number): string {
	try {
		const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
		return (
			words
				.join(" ")
				.replace(/\p{Cc}/gu, "?")
				.slice(0, 80) || `pid ${pid}`
		);
	} catch {
		return `pid ${pid}`;
	}
}
