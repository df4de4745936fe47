import type { Refusal } from "../contract/envelope.ts";
import { quoteName } from "../text/terminal.ts";

/**
 * A file system error on discern's own state (a file where `.git/discern`
 * should be a folder, a folder where `proof.json` goes, no permission) as a
 * refusal that names the path, instead of a crash. Null for anything else:
 * that stays a bug.
 */
export function writeDenied(error: unknown, what: string): Refusal | null {
	if (typeof error !== "object" || error === null || !("code" in error)) return null;
	const code = String(error.code);
	if (!STATE_ERRORS.has(code)) return null;
	const path = "path" in error && typeof error.path === "string" ? quoteName(error.path) : "its state folder";
	return {
		error: "write_denied",
		message: `discern cannot write ${what} at ${path} (${code === LINK_CODE ? "" : `${code}: `}${STATE_ERRORS.get(code)}).`,
		hints: [`Move or remove what is at ${path} (discern keeps its state under the git dir, in \`discern/\`), then run this again.`],
	};
}

/** Not an errno: the code of the error thrown for a symbolic link on a state path (state/dir.ts), which is never followed. */
export const LINK_CODE = "ESTATELINK";

const STATE_ERRORS = new Map([
	[LINK_CODE, "a symbolic link, which discern never follows out of the git dir"],
	["ENOTDIR", "a file is where a folder should be"],
	["EISDIR", "a folder is where a file should be"],
	["EEXIST", "something is already there"],
	["EACCES", "permission denied"],
	["EPERM", "operation not permitted"],
	["EROFS", "read-only file system"],
	["ENOSPC", "no space left on the device"],
	["ELOOP", "too many symbolic links"],
]);
