/**
 * Linux's child subreaper flag, through libc (bun:ffi). While it is set, a
 * descendant whose parent dies is re-parented to discern instead of to init:
 * a job's daemon stays findable from discern's own children list however it
 * detached (setsid, a double fork, a cleared environment). Such adopted
 * children were not spawned by the runtime, so it never reaps them: `reap`
 * does (waitpid with WNOHANG), or they would linger as zombies in a
 * long-running `discern mcp`.
 *
 * Loaded only when a gate is about to run jobs (start-up time is budgeted),
 * and held while any run is in progress: the flag is cleared again when the
 * last one ends, so that no unrelated orphan (a `git gc --auto` detaching
 * from a later git call) is adopted meanwhile. Where it is not available
 * (not Linux, no glibc's libc.so.6, e.g. musl) `holdSubreaper` says so and
 * the caller falls back to scanning /proc.
 */
interface Libc {
	prctl: (option: number, arg2: number, arg3: number, arg4: number, arg5: number) => number;
	waitpid: (pid: number, status: null, options: number) => number;
}

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

let libc: Libc | null | undefined;
let holders = 0;

async function load(): Promise<Libc | null> {
	if (libc !== undefined) return libc;
	libc = null;
	if (process.platform !== "linux") return libc;
	try {
		const { dlopen, FFIType } = await import("bun:ffi");
		const { symbols } = dlopen("libc.so.6", {
			prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
			waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
		});
		libc = { prctl: symbols.prctl, waitpid: symbols.waitpid };
	} catch {
		// No libc.so.6 (musl, a static build): the fallback it is.
	}
	return libc;
}

/** Load libc now (nothing is set): a gate that will likely run jobs does it beside its first reads, off the path to its first job. */
export function preloadSubreaper(): Promise<unknown> {
	return load();
}

/** Become a child subreaper for as long as some caller holds it; false when the platform cannot. */
export async function holdSubreaper(): Promise<boolean> {
	const lib = await load();
	if (!lib) return false;
	if (holders === 0 && lib.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) !== 0) return false;
	holders++;
	return true;
}

/** Let go of one hold; the last one clears the flag. */
export function releaseSubreaper(): void {
	if (holders === 0) return;
	holders--;
	if (holders === 0) libc?.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

/**
 * Collect the exit status of an adopted child that has exited, so that it
 * does not linger as a zombie. Only for children the runtime did not spawn:
 * taking the status of one it did would leave it waiting forever.
 */
export function reap(pid: number): boolean {
	return libc ? libc.waitpid(pid, null, WNOHANG) === pid : false;
}
