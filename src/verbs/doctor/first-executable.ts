/**
 * The program a shell command starts with, for a PATH check only: skips
 * leading `VAR=value` assignments and `env`/`exec`/`time` wrappers. Returns
 * null when the command starts with shell syntax we should not guess at.
 */
export function firstExecutable(command: string): string | null {
	const words = command.trim().split(/\s+/);
	for (const word of words) {
		if (word === "") return null;
		if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
		if (word === "env" || word === "exec" || word === "time" || word === "command") continue;
		if (/^[({!$`"'\\]/.test(word) || /[;&|<>]/.test(word)) return null;
		return word;
	}
	return null;
}
