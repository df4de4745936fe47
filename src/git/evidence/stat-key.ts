import { type BigIntStats, fstatSync, lstatSync } from "node:fs";
import { AT_FDCWD, AT_SYMLINK_NOFOLLOW, type Pointer, ptr, STATX_BASIC_STATS, STATX_BYTES, statxCall } from "../../platform/statx.ts";

/**
 * A file's fingerprint as one string (known-content.ts): equal strings, same
 * mode, inode, size, ctime and mtime to the nanosecond, and device. It is the
 * hex of those fields as Linux's `struct statx` holds them, little-endian:
 *
 * | bytes | field |
 * |---|---|
 * | 0–1 | mode (type and permission bits) |
 * | 2–9 | inode |
 * | 10–17 | size |
 * | 18–29 | ctime: seconds (signed 64 bits), nanoseconds (32) |
 * | 30–41 | mtime: likewise |
 * | 42–49 | device: major, minor (32 bits each) |
 *
 * A look stats every tracked file (`lstatKeys`: `statx` straight into one
 * buffer on Linux, node's lstat elsewhere); a read tied to a look's stat
 * (tied-read.ts) stats the file it opened through node (`statKey`), which
 * writes the same bytes, so the two compare as strings.
 */

/** Where each field of the key sits in `struct statx`: [offset there, bytes], in key order. */
const FIELDS = [
	[28, 2], // stx_mode
	[32, 16], // stx_ino, stx_size
	[96, 12], // stx_ctime.tv_sec, .tv_nsec
	[112, 12], // stx_mtime.tv_sec, .tv_nsec
	[136, 8], // stx_dev_major, stx_dev_minor
] as const;
const KEY_BYTES = 50;
/** What a key needs `statx` to have filled: type, mode, mtime, ctime, inode and size. */
const NEEDED = 0x1 | 0x2 | 0x40 | 0x80 | 0x100 | 0x200;

/** The key of a stat read through node (`bigint: true`): the bytes `statx` would give, so keys from either compare. */
export function statKey(found: Pick<BigIntStats, "mode" | "ino" | "size" | "ctimeNs" | "mtimeNs" | "dev">): string {
	const key = Buffer.alloc(KEY_BYTES);
	key.writeUInt16LE(Number(found.mode & 0xffffn), 0);
	key.writeBigUInt64LE(BigInt.asUintN(64, found.ino), 2);
	key.writeBigUInt64LE(BigInt.asUintN(64, found.size), 10);
	writeTime(key, 18, found.ctimeNs);
	writeTime(key, 30, found.mtimeNs);
	// glibc's dev_t: the major number's bits 8–19 and 32 up, the minor's 0–7 and 20 up.
	const dev = BigInt.asUintN(64, found.dev);
	key.writeUInt32LE(Number(BigInt.asUintN(32, ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn))), 42);
	key.writeUInt32LE(Number(BigInt.asUintN(32, (dev & 0xffn) | ((dev >> 12n) & ~0xffn))), 46);
	return key.toString("hex");
}

function writeTime(key: Buffer, at: number, ns: bigint): void {
	// Seconds rounded down, nanoseconds never negative: as the kernel writes a time before 1970.
	let seconds = ns / 1_000_000_000n;
	let nanos = ns % 1_000_000_000n;
	if (nanos < 0n) {
		seconds -= 1n;
		nanos += 1_000_000_000n;
	}
	key.writeBigInt64LE(seconds, at);
	key.writeUInt32LE(Number(nanos), at + 8);
}

/** The key of every path under `root` ("absent" where nothing can be stat'ed: gone, or a folder on its way is not one), in order. */
export function lstatKeys(root: string, paths: readonly string[]): string[] {
	const call = statxCall();
	if (!call) return paths.map((path) => nodeKey(`${root}/${path}`));
	const { result, resultAt } = scratch();
	const name = Buffer.alloc(NAME_BYTES);
	const nameAt = ptr(name);
	const prefix = name.write(`${root}/`, 0);
	const keys = new Array<string>(paths.length);
	for (let n = 0; n < paths.length; n++) {
		const path = paths[n] as string;
		// UTF-8 takes at most three bytes a UTF-16 unit: a name that might not fit is stat'ed through node.
		if (prefix + path.length * 3 + 1 > NAME_BYTES) {
			keys[n] = nodeKey(`${root}/${path}`);
			continue;
		}
		name[prefix + name.write(path, prefix)] = 0;
		if (call(AT_FDCWD, nameAt, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, resultAt) !== 0) keys[n] = "absent";
		else if ((result.readUInt32LE(0) & NEEDED) !== NEEDED) keys[n] = nodeKey(`${root}/${path}`);
		else keys[n] = keyOfStatx(result);
	}
	return keys;
}

/**
 * The key of the file open at `fd` (`statx` with `AT_EMPTY_PATH` on Linux,
 * node's fstat elsewhere): null when it cannot be stat'ed.
 */
export function fstatKey(fd: number): string | null {
	const call = statxCall();
	if (call) {
		const { result, resultAt } = scratch();
		if (call(fd, emptyName(), AT_EMPTY_PATH, STATX_BASIC_STATS, resultAt) === 0 && (result.readUInt32LE(0) & NEEDED) === NEEDED) return keyOfStatx(result);
	}
	try {
		return statKey(fstatSync(fd, { bigint: true }));
	} catch {
		return null;
	}
}

/** `AT_EMPTY_PATH`: the call is about `dirfd` itself, named by an empty string. */
const AT_EMPTY_PATH = 0x1000;
const EMPTY_NAME = Buffer.alloc(1);
let emptyNameAt: Pointer | undefined;
function emptyName(): Pointer {
	emptyNameAt ??= ptr(EMPTY_NAME);
	return emptyNameAt;
}

/** This thread's `struct statx` buffer, and where it is for a system call. */
function scratch(): { result: Buffer; resultAt: Pointer } {
	if (!held) {
		const result = Buffer.alloc(STATX_BYTES);
		held = { result, resultAt: ptr(result) };
	}
	return held;
}
let held: { result: Buffer; resultAt: Pointer } | undefined;

/** Longer than any path a system call takes (PATH_MAX, 4096 bytes): such a path fails as it would through node. */
const NAME_BYTES = 64 * 1024;

/** The key's fields gathered from a `struct statx` (moved within the buffer, which the next call overwrites), as hex. */
function keyOfStatx(result: Buffer): string {
	let to = 0;
	for (const [from, bytes] of FIELDS) {
		result.copyWithin(STATX_BYTES - KEY_BYTES + to, from, from + bytes);
		to += bytes;
	}
	return result.toString("hex", STATX_BYTES - KEY_BYTES, STATX_BYTES);
}

function nodeKey(path: string): string {
	try {
		const found = lstatSync(path, { bigint: true, throwIfNoEntry: false });
		return found ? statKey(found) : "absent";
	} catch {
		return "absent";
	}
}

/** What a key says, for the checks that read it; null for "absent" or anything not a key. */
export function readKey(key: string): { mode: number; ctimeNs: bigint; mtimeNs: bigint; device: string } | null {
	if (key.length !== KEY_BYTES * 2) return null;
	const bytes = Buffer.from(key, "hex");
	if (bytes.length !== KEY_BYTES) return null;
	const time = (at: number) => bytes.readBigInt64LE(at) * 1_000_000_000n + BigInt(bytes.readUInt32LE(at + 8));
	return { mode: bytes.readUInt16LE(0), ctimeNs: time(18), mtimeNs: time(30), device: deviceOfKey(key) };
}

/** The device a key records, as `readKey` gives it. */
export function deviceOfKey(key: string): string {
	return key.slice(84);
}

/** The size a key records, in bytes; null for anything not a key. */
export function sizeOfKey(key: string | undefined): number | null {
	if (key === undefined || key.length !== KEY_BYTES * 2) return null;
	const size = Buffer.from(key.slice(20, 36), "hex");
	return size.length === 8 ? Number(size.readBigUInt64LE(0)) : null;
}

/** The mode a key records (type and permission bits), read from its first field alone; null for anything not a key. */
export function modeOfKey(key: string | undefined): number | null {
	if (key === undefined || key.length !== KEY_BYTES * 2) return null;
	// Two bytes, little-endian: swapped into a number.
	const bytes = Number.parseInt(key.slice(0, 4), 16);
	return Number.isInteger(bytes) ? ((bytes & 0xff) << 8) | (bytes >> 8) : null;
}
