/**
 * Linux's `statx(2)` through `bun:ffi`, for the one place a stat per file is
 * the whole cost: the evidence's look at every tracked file of a large tree
 * (git/evidence/stat-key.ts). node's `lstat` builds an object per call and,
 * with nanoseconds, six BigInts; this fills one buffer the caller reads.
 * `struct statx` has one layout on every Linux architecture (unlike `struct
 * stat`). Elsewhere, or where libc lacks the call (glibc before 2.28, musl),
 * `statxCall` returns null and the caller stats through node.
 */
import { dlopen, FFIType, type Pointer, ptr } from "bun:ffi";

/** `AT_FDCWD`: a relative path is taken from the working folder (the paths here are absolute). */
export const AT_FDCWD = -100;
/** `AT_SYMLINK_NOFOLLOW`: a final symbolic link is described, not followed (lstat). */
export const AT_SYMLINK_NOFOLLOW = 0x100;
/** `STATX_BASIC_STATS`: type, mode, links, owner, times, inode, size, blocks. */
export const STATX_BASIC_STATS = 0x7ff;
/** `sizeof(struct statx)`. */
export const STATX_BYTES = 256;

/** `statx(dirfd, path, flags, mask, buffer)`: 0, or -1 with errno set. `path` points at a NUL-terminated name. */
export type StatxCall = (dirfd: number, path: Pointer, flags: number, mask: number, buffer: Pointer) => number;

let loaded: StatxCall | null | undefined;

export function statxCall(): StatxCall | null {
	if (loaded !== undefined) return loaded;
	loaded = null;
	if (process.platform !== "linux") return loaded;
	try {
		const libc = dlopen("libc.so.6", {
			statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
		});
		loaded = libc.symbols.statx;
	} catch {
		// No glibc, or one without statx: node's lstat serves.
	}
	return loaded;
}

export { type Pointer, ptr };
