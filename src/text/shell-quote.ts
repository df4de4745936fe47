/**
 * Commands discern prints for a person or an agent to paste. Every word
 * that came from outside (a branch, a path, a ref an agent named) is one
 * shell word: bare when it is plainly safe, else single-quoted, so a branch
 * named `agent/x;touch${IFS}PWNED;#` is an argument, never a command.
 */

/** A value as one word a person can paste into a shell: bare when safe, else single-quoted. */
export function shellWord(value: string): string {
	return /^[A-Za-z0-9_./:@%+=,…-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** A command line of `words`, each one shell word: what a hint shows in a code span. */
export function shellCommand(...words: readonly string[]): string {
	return words.map(shellWord).join(" ");
}
