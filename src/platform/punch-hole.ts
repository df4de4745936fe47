/**
 * Free the disk blocks of a byte range of an open file without changing its
 * size or moving anyone's write offset: `fallocate(PUNCH_HOLE | KEEP_SIZE)`
 * through `bun:ffi`. Linux only (ext4, xfs, btrfs, tmpfs support it); where
 * libc, the call or the file system lacks it, `punchHole` returns false and
 * the caller does without.
 */
import { dlopen, FFIType } from "bun:ffi";

const FALLOC_FL_KEEP_SIZE = 0x01;
const FALLOC_FL_PUNCH_HOLE = 0x02;

type Fallocate = (fd: number, mode: number, offset: number, length: number) => number;

let loaded: Fallocate | null | undefined;

function fallocate(): Fallocate | null {
	if (loaded !== undefined) return loaded;
	loaded = null;
	if (process.platform !== "linux") return loaded;
	try {
		const libc = dlopen("libc.so.6", { fallocate: { args: [FFIType.i32, FFIType.i32, FFIType.i64, FFIType.i64], returns: FFIType.i32 } });
		loaded = (fd, mode, offset, length) => Number(libc.symbols.fallocate(fd, mode, offset, length));
	} catch {
		// No glibc (musl, an unusual system): the caller keeps its file whole until it can rewrite it.
	}
	return loaded;
}

/** Punch a hole over [offset, offset + length); true when the blocks were freed. */
export function punchHole(fd: number, offset: number, length: number): boolean {
	const call = fallocate();
	if (!call || length <= 0) return false;
	return call(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) === 0;
}
