/** Shell builtins and keywords: nothing on PATH to find, and the real program comes later on the line. */
const BUILTINS = new Set([
	"cd",
	"source",
	".",
	"export",
	"set",
	"unset",
	"eval",
	"ulimit",
	"umask",
	"test",
	"[",
	"true",
	"false",
	":",
	"if",
	"for",
	"while",
	"case",
	"exit",
	"echo",
	"printf",
	"read",
	"trap",
	"wait",
	"shift",
	"alias",
	"type",
]);

/**
 * The program a shell command starts with, for a PATH check only: skips
 * leading `VAR=value` assignments and `env`/`exec`/`time`/`command`/`nice`
 * wrappers (with their options). Returns null when the command starts with
 * shell syntax or a builtin, which we should not guess about.
 */
export function firstExecutable(command: string): string | null {
	const words = command.trim().split(/\s+/);
	let wrapper: string | null = null;
	for (const word of words) {
		if (word === "") return null;
		if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
		if (wrapper && word.startsWith("-")) continue; // `env -i`, `nice -n` …
		if (["env", "exec", "time", "command", "nice", "nohup"].includes(word)) {
			wrapper = word;
			continue;
		}
		if (/^[({!$`"'\\]/.test(word) || /[;&|<>]/.test(word)) return null;
		if (BUILTINS.has(word)) return null;
		return word;
	}
	return null;
}
