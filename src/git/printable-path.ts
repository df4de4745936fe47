/**
 * git prints the folders it finds (`rev-parse --show-toplevel --git-dir
 * --git-common-dir`, the `.git` and `commondir` pointers it writes) raw, one
 * a line, and `rev-parse` has no `-z`: a path holding a line break reads as
 * two answers, and the second half of one folder is taken for the next
 * (`/tmp/a<newline>b` is read as the repository `/tmp/a`). A carriage return
 * or another control character is stripped, or redraws the line, on its way
 * through a terminal or a trim. Such a path is refused, as a name that is
 * not UTF-8 is (platform/folder.ts): discern never judges a repository it
 * cannot name exactly.
 */

const CONTROL = /[\u0000-\u001f\u007f]/;

/** What in `path` git's printed answers cannot carry (`a line break`), with what to do; null when they can carry all of it. */
export function unprintablePath(path: string): string | null {
	const found = CONTROL.exec(path)?.[0];
	if (found === undefined) return null;
	const what =
		found === "\n"
			? "a line break"
			: found === "\r"
				? "a carriage return"
				: `the control character U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
	return `its path holds ${what}, and git prints paths as they are, one a line: rename or move it`;
}

/** A value git wrote in a pointer file (`.git`, `commondir`, a worktree's `gitdir`): its text without the line ending git adds, as git itself reads it. */
export function pointerValue(text: string): string {
	return text.replace(/[\r\n]+$/, "");
}

/** Lines git printed one answer a line, without the final line ending (nothing else trimmed: a path may end in a space). */
export function answerLines(stdout: string): string[] {
	const body = stdout.endsWith("\n") ? stdout.slice(0, -1) : stdout;
	return body === "" ? [] : body.split("\n");
}
