import { cp, lstat, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { errorCode } from "../platform/error-code.ts";
import { plural } from "../text/plural.ts";
import { quoteName } from "../text/terminal.ts";
import { stateFolder } from "./dir.ts";

/**
 * Where an undo puts the files it takes away: `<commonDir>/discern/kept/<time>/<path>`.
 *
 * An undo (a landing or a merge stopped halfway) decides what to take away
 * from what a record says (the accept journal, the merge start) and from
 * the files' content and times. Every record is sealed with a key in the git
 * dir, and an agent running as the same user can read that key: a seal stops
 * hand edits and copies, not that agent. A person's file can also appear at
 * a path the landing writes while it runs. So no undo deletes a file: each
 * one it would remove or overwrite is moved here first (a rename: the same
 * bytes, nothing copied), even one git surely wrote; those are cheap to
 * keep, and the person deletes the folder once they have looked. The
 * folders are made with the state-folder checks (never through a link).
 */
export class Keeper {
	private readonly stamp = `${new Date().toISOString().replaceAll(":", "-")}-${process.pid}`;
	private moved = 0;
	private made: string | null = null;

	constructor(private readonly commonDir: string) {}

	get count(): number {
		return this.moved;
	}

	/**
	 * Move `root/path` (a file or link, never a folder) into the kept folder at
	 * the same path. True when it was moved (or nothing is there); false when it
	 * could not be: the caller leaves it where it is and never overwrites it.
	 */
	async moveAside(root: string, path: string): Promise<boolean> {
		const from = join(root, path);
		const found = await lstat(from).catch(() => null);
		if (!found) return true;
		if (found.isDirectory()) return false;
		const parts = path.split("/");
		const name = parts.pop();
		if (!name) return false;
		let folder: string;
		try {
			folder = stateFolder(this.commonDir, ["kept", this.stamp, ...parts], { create: true }) as string;
		} catch {
			return false;
		}
		this.made = join(this.commonDir, "discern", "kept", this.stamp);
		const to = join(folder, name);
		if (await lstat(to).catch(() => null)) return false;
		try {
			await rename(from, to);
		} catch (error) {
			if (errorCode(error) !== "EXDEV") return false;
			// Another file system: a real copy first (a link stays a link), and the original goes only once the copy is whole.
			try {
				await cp(from, to, { errorOnExist: true, force: false, verbatimSymlinks: true, preserveTimestamps: true });
				await rm(from, { force: true });
			} catch {
				return false;
			}
		}
		this.moved += 1;
		return true;
	}

	/**
	 * Move the whole folder `from` into the kept folder as `name`: a rename, so
	 * only on the same file system as the git dir. The path it went to, or null
	 * when it could not be moved (it is then left where it is: nothing copied, nothing deleted).
	 */
	async moveFolderAside(from: string, name: string): Promise<string | null> {
		let folder: string;
		try {
			folder = stateFolder(this.commonDir, ["kept", this.stamp], { create: true }) as string;
		} catch {
			return null;
		}
		this.made = folder;
		const to = join(folder, name);
		if (await lstat(to).catch(() => null)) return null;
		try {
			await rename(from, to);
		} catch {
			return null;
		}
		this.moved += 1;
		return to;
	}

	/** A sentence naming what was moved and where, for a verb's message; "" when nothing was. */
	note(): string {
		if (this.moved === 0 || this.made === null) return "";
		return `${plural(this.moved, "file")} the undo took away ${this.moved === 1 ? "was" : "were"} moved, not deleted, to ${quoteName(this.made)} (under ${this.moved === 1 ? "its" : "their"} own path${this.moved === 1 ? "" : "s"}): copy back what you want from there, then delete that folder.`;
	}
}
