import { isUtf8 } from "node:buffer";
import { readdir, readlink, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { quoteName } from "../text/terminal.ts";
import { errorCode } from "./error-code.ts";

/**
 * Why a folder cannot be worked in, in words that name the real problem —
 * or null when it is a folder discern can use. Without it every one of these
 * reads as "not a git repository" or "does not exist", which sends a person
 * looking in the wrong place.
 */
export async function folderProblem(path: string): Promise<string | null> {
	if (!path.isWellFormed()) return "its name is not valid Unicode (it holds a lone surrogate)";
	try {
		const found = await stat(path);
		return found.isDirectory() ? null : "it is not a folder";
	} catch (error) {
		switch (errorCode(error)) {
			case "ELOOP":
				return `${await describeLoop(path)}, so it leads nowhere`;
			case "ENOENT":
				return (await undecodableComponent(path)) ?? "it does not exist";
			case "ENOTDIR":
				return "a part of its path is a file, not a folder";
			case "EACCES":
			case "EPERM":
				return "permission to enter it is denied";
			case "ENAMETOOLONG":
				return "its path is too long for the file system";
			default:
				return `it cannot be opened (${errorCode(error) ?? String(error)})`;
		}
	}
}

/** How many links a loop description follows before it gives up (the kernel's own limit is 40). */
const MAX_HOPS = 40;

/** `a → b → a` when the path itself is a link that loops; otherwise where the loop is not known. */
async function describeLoop(path: string): Promise<string> {
	const seen = [path];
	let current = path;
	for (let hop = 0; hop < MAX_HOPS; hop++) {
		const target = await readlink(current).catch(() => null);
		if (target === null) break;
		current = isAbsolute(target) ? target : resolve(dirname(current), target);
		const again = seen.indexOf(current);
		seen.push(current);
		if (again >= 0) return `it is a loop of symbolic links (${seen.slice(again).map(quoteName).join(" → ")})`;
	}
	return "a symbolic link on its way loops back on itself";
}

/**
 * A path that does not exist may only look missing: a folder whose name is
 * not valid UTF-8 cannot be named by a JavaScript string at all (its bytes
 * decode to U+FFFD, which names another folder). Walk the path and, at the
 * first part that is missing, look for an entry whose raw name decodes to
 * it — then say so, rather than "does not exist".
 */
async function undecodableComponent(path: string): Promise<string | null> {
	if (!path.includes("\uFFFD")) return null;
	const parts = resolve(path)
		.split(sep)
		.filter((part) => part !== "");
	let parent: string = sep;
	for (const part of parts) {
		const here = join(parent, part);
		if (
			await stat(here).then(
				() => true,
				() => false,
			)
		) {
			parent = here;
			continue;
		}
		if (!part.includes("\uFFFD")) return null;
		const entries = await readdir(parent, { encoding: "buffer" }).catch(() => [] as Buffer[]);
		const undecodable = entries.some((raw) => raw.toString("utf8") === part && !isUtf8(raw));
		return undecodable
			? `the folder name ${quoteName(part)} in ${quoteName(parent)} is not valid UTF-8 (shown with �), and discern works only in UTF-8 paths; rename it`
			: null;
	}
	return null;
}
