/**
 * Commands discern prints for a person or an agent to paste. Every word
 * that came from outside (a branch, a path, a ref an agent named) is one
 * shell word: bare when it is plainly safe, else single-quoted, so a branch
 * named `agent/x;touch${IFS}PWNED;#` is an argument, never a command.
 */

/**
 * A value as one word a person can paste into a shell: bare when safe, else single-quoted. A value holding a control
 * character is written `$'…'` with it escaped (bash, zsh, ksh, and POSIX sh since 2024): raw, a carriage return would
 * redraw the line on a terminal and show a command that is not the one pasted.
 */
export function shellWord(value: string): string {
	if (/^[A-Za-z0-9_./:@%+=,…-]+$/.test(value)) return value;
	if (!CONTROL.test(value)) return `'${value.replaceAll("'", "'\\''")}'`;
	return `$'${[...value].map(escapedForDollarQuote).join("")}'`;
}

/** A repository-relative path as a command's argument: one that starts with `-` is written `./-…`, never read as an option. */
export function pathArgument(path: string): string {
	return path.startsWith("-") ? `./${path}` : path;
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", "'": "\\'" };

function escapedForDollarQuote(char: string): string {
	const named = NAMED[char];
	if (named !== undefined) return named;
	return CONTROL.test(char) ? `\\x${(char.codePointAt(0) ?? 0).toString(16).padStart(2, "0")}` : char;
}

/** A command line of `words`, each one shell word: what a hint shows in a code span. */
export function shellCommand(...words: readonly string[]): string {
	return words.map(shellWord).join(" ");
}
