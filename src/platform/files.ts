import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { lstat, mkdir, realpath, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Raised when a write would leave the project through a symlink or `..`. */
export class WriteDeniedError extends Error {
	override readonly name = "WriteDeniedError";
}

/** Temp files made by this process so far. */
let tempFiles = 0;

/**
 * Write a file inside `root` atomically (temp file in the same folder, then
 * rename), refusing any path that resolves outside `root`, including through
 * a symlinked folder or a symlink at the target itself.
 */
export async function writeFileAtomic(
	root: string,
	relativePath: string,
	content: string | Uint8Array,
	/** `keepMode`: a file already there keeps its mode (a 0600 .mcp.json stays private); else `mode`, else 0644. */
	options: { mode?: number; keepMode?: boolean } = {},
): Promise<string> {
	const target = await resolveInside(root, relativePath);
	const existing = options.keepMode ? await stat(target).catch(() => null) : null;
	const mode = existing?.isFile() ? existing.mode & 0o777 : (options.mode ?? 0o644);
	await mkdir(dirname(target), { recursive: true });
	// Re-check after mkdir: a folder on the way may be a symlink.
	await resolveInside(root, relativePath);
	// Unique within the process too: two writes in one folder may be under way at once.
	const temp = join(dirname(target), `.${process.pid}.${Date.now()}.${++tempFiles}.discern-tmp`);
	try {
		await writeFile(temp, content, { mode });
		await rename(temp, target).catch((error: unknown) => {
			// What is in the way is at the target (a folder where the file goes), not the temp file the error names.
			throw typeof error === "object" && error !== null ? Object.assign(error, { path: target }) : error;
		});
	} catch (error) {
		await rm(temp, { force: true });
		throw error;
	}
	return target;
}

/** Does a path exist (without following a final symlink)? */
export async function exists(path: string): Promise<boolean> {
	try {
		await lstat(path);
		return true;
	} catch {
		return false;
	}
}

/** Throws WriteDeniedError unless `relativePath` can be written inside `root`; lets callers check every target before writing any. */
export async function resolveInside(root: string, relativePath: string): Promise<string> {
	const realRoot = await realpath(root);
	const target = resolve(realRoot, relativePath);
	if (!isInside(realRoot, target)) throw new WriteDeniedError(`${relativePath} is outside ${root}`);
	const stat = await lstat(target).catch(() => null);
	if (stat?.isSymbolicLink()) throw new WriteDeniedError(`${relativePath} is a symlink; discern does not write through links`);
	// The deepest existing ancestor must be a folder, and still inside the root once links are resolved.
	let probe = dirname(target);
	for (;;) {
		const real = await realpath(probe).catch(() => null);
		if (real !== null) {
			if (!isInside(realRoot, real)) throw new WriteDeniedError(`${relativePath} leads outside ${root} through a symlink`);
			if (!(await lstat(real)).isDirectory()) throw new WriteDeniedError(`${relative(realRoot, real) || "."} is a file, so ${relativePath} cannot be created`);
			break;
		}
		const parent = dirname(probe);
		if (parent === probe) break;
		probe = parent;
	}
	return target;
}

export function isInside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/** A path with its symlinks resolved, or itself when it does not exist (yet, or any more). */
export async function realPathOf(path: string): Promise<string> {
	return realpath(path).catch(() => path);
}

/** Remove the folders `path` leaves empty, from its own folder up to (never including) `root`. */
export async function removeEmptyFolders(root: string, path: string): Promise<void> {
	const top = await realpath(root);
	for (let folder = dirname(path); folder !== top && isInside(top, folder); folder = dirname(folder)) {
		if (
			!(await rmdir(folder).then(
				() => true,
				() => false,
			))
		)
			break;
	}
}

/**
 * A small file's bytes, read now: null unless `path` is a regular file of
 * at most `limit` bytes. Opened without following a link and without
 * waiting on a FIFO (a job may put either where discern reads its own
 * files: a read would follow the link, or hang), and judged by what was
 * opened. Synchronous: for files of a few bytes to a few MB, where each hop
 * through the file-system threads costs more than the read.
 */
export function readRegularFile(path: string, limit: number): Buffer | null {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch {
		return null;
	}
	try {
		const found = fstatSync(fd);
		if (!found.isFile() || found.size > limit) return null;
		// One byte more than the stat said is asked for: a file that grew since is read to the limit and judged by that.
		const bytes = Buffer.alloc(Math.min(found.size + 1, limit + 1));
		let filled = 0;
		for (let got = -1; got !== 0 && filled < bytes.length; filled += got) got = readSync(fd, bytes, filled, bytes.length - filled, filled);
		return filled > limit ? null : bytes.subarray(0, filled);
	} catch {
		return null;
	} finally {
		closeSync(fd);
	}
}
