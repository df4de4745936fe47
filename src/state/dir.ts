import { lstatSync, mkdirSync, readdirSync, rmSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { errorCode } from "../platform/error-code.ts";
import { readRegularFile, writeFileAtomic } from "../platform/files.ts";
import { LINK_CODE } from "../platform/write-denied.ts";

/**
 * Per-checkout gate state, in the checkout's own git admin dir (never
 * committed): the Proof marker, the last run, and run outputs; and the
 * repository's shared state in the common git dir (the seal key, accept
 * journals, resource ledgers, the logbook).
 *
 * The git dir is writable by whatever runs in the checkout (an agent, a
 * job), and discern may run as the person outside that agent's sandbox. So
 * a state path is never followed out of the git dir: each part of it, from
 * the git dir down, must be a real folder (the last one a real file), never
 * a symbolic link. A link there is refused, not set aside: it may be a
 * person's deliberate choice (state on another disk), and only they can
 * say; moving it would hide it from them. Writers refuse with a file-system
 * error carrying `code` and `path` (`writeDenied` turns it into a
 * `write_denied` refusal naming the link); readers see nothing there.
 * Checked, then used: the check and the write are not one atomic step, but
 * a link made in between is the only way through, and every write is also
 * opened or renamed without following a final link.
 */
export function stateDir(gitDir: string): string {
	return join(gitDir, "discern");
}

/** What is at `path` is not what a state path needs: a link, or not a folder where one is needed. */
function refused(path: string, found: Stats, folder: boolean): Error {
	if (found.isSymbolicLink())
		return Object.assign(new Error(`${path} is a symbolic link; discern never follows its state out of the git dir`), { code: LINK_CODE, path });
	return Object.assign(new Error(`${path} is not a ${folder ? "folder" : "file"}`), {
		code: folder ? "ENOTDIR" : found.isDirectory() ? "EISDIR" : "EEXIST",
		path,
	});
}

function lstatOrNull(path: string): Stats | null {
	return lstatSync(path, { throwIfNoEntry: false }) ?? null;
}

/**
 * `<root>/discern/<parts…>`, each folder on the way checked: a real folder,
 * never a link. `create`: the missing ones are made, one at a time, each
 * checked after it was made. Without `create`, null when one is missing.
 * Throws (see above) at the first part that is a link or not a folder.
 */
export function stateFolder(root: string, parts: readonly string[], options: { create: boolean }): string | null {
	let here = root;
	for (const part of ["discern", ...parts]) {
		here = join(here, part);
		let found = lstatOrNull(here);
		if (!found && options.create) {
			try {
				mkdirSync(here);
			} catch (error) {
				if (errorCode(error) !== "EEXIST") throw error;
			}
			found = lstatOrNull(here);
		}
		if (!found) return null;
		if (found.isSymbolicLink() || !found.isDirectory()) throw refused(here, found, true);
	}
	return here;
}

/** `stateFolder` for a reader: null for a missing folder, and for one that is a link or not a folder (nothing discern wrote is there). */
export function stateFolderToRead(root: string, parts: readonly string[]): string | null {
	try {
		return stateFolder(root, parts, { create: false });
	} catch {
		return null;
	}
}

/** `<root>/discern/<relative>` split into its folders and its file name. */
function split(relative: string): { parts: string[]; name: string } {
	const parts = relative.split("/").filter((part) => part !== "");
	const name = parts.pop();
	if (name === undefined || [...parts, name].some((part) => part === "." || part === "..")) throw new Error(`not a state file name: ${relative}`);
	return { parts, name };
}

/** Where a state file is (unchecked: for messages and tests). */
export function statePath(root: string, relative: string): string {
	return join(stateDir(root), relative);
}

/** Limit on a state file read back: discern writes none this large. */
const MAX_STATE_BYTES = 16 * 1024 * 1024;

/** A state file's text; null when it, or a folder on its way, is missing, a link, or not what discern writes. */
export function readStateFile(root: string, relative: string): string | null {
	const { parts, name } = split(relative);
	const folder = stateFolderToRead(root, parts);
	if (folder === null) return null;
	// Opened without following a final link (readRegularFile): a link there reads as nothing.
	return readRegularFile(join(folder, name), MAX_STATE_BYTES)?.toString("utf8") ?? null;
}

/** The names in a state folder; none when it is missing, a link, or not a folder. */
export function listStateFolder(root: string, parts: readonly string[]): string[] {
	const folder = stateFolderToRead(root, parts);
	if (folder === null) return [];
	try {
		return readdirSync(folder);
	} catch {
		return [];
	}
}

/** Write a state file atomically (a temp file beside it, then a rename), its folders made and checked first. */
export async function writeStateFile(root: string, relative: string, content: string, options: { mode?: number } = {}): Promise<string> {
	const { parts, name } = split(relative);
	const folder = stateFolder(root, parts, { create: true }) as string;
	const existing = lstatOrNull(join(folder, name));
	// A link or a folder where the file goes is not discern's: refused, named, left as it is.
	if (existing && !existing.isFile()) throw refused(join(folder, name), existing, false);
	return writeFileAtomic(folder, name, content, options);
}

/**
 * Remove a state file: only a regular file in real folders. A link in its
 * place is left alone (neither followed nor removed: it is not discern's),
 * and so is anything under a link on the way.
 */
export function removeStateFile(root: string, relative: string): void {
	const { parts, name } = split(relative);
	const folder = stateFolderToRead(root, parts);
	if (folder === null) return;
	const path = join(folder, name);
	if (lstatOrNull(path)?.isFile()) rmSync(path, { force: true });
}

/**
 * Make a folder again that was there (a run's log folder a job removed),
 * with its missing parents, one at a time and never through a link: each
 * part up to the first one that exists is checked as it is found or made.
 */
export function remakeFolder(path: string): void {
	const found = lstatOrNull(path);
	if (found) {
		if (found.isSymbolicLink() || !found.isDirectory()) throw refused(path, found, true);
		return;
	}
	const parent = dirname(path);
	if (parent !== path) remakeFolder(parent);
	try {
		mkdirSync(path);
	} catch (error) {
		if (errorCode(error) !== "EEXIST") throw error;
	}
	const made = lstatOrNull(path);
	if (!made) throw Object.assign(new Error(`${path} could not be made`), { code: "ENOENT", path });
	if (made.isSymbolicLink() || !made.isDirectory()) throw refused(path, made, true);
}

/** Where a lock goes (`<root>/discern/<name>`), its folder made and checked: for `acquireLock`, which is synchronous. */
export function stateLockPath(root: string, name: string): string {
	const { parts, name: file } = split(name);
	return join(stateFolder(root, parts, { create: true }) as string, file);
}
