/**
 * Writing a string or a key as TOML text, per the TOML spec: a basic string
 * must escape `"`, `\` and the control characters but tab (U+0000–U+0008,
 * U+000A–U+001F, U+007F), and tab is escaped too, so that the string reads
 * as one visible line; a key is bare when it is only `A-Za-z0-9_-`, else
 * such a string. The one quoting for every TOML discern writes: `config
 * set`'s edits and the config `setup` proposes.
 */

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** TOML's short escapes; any other control character is `\uXXXX`. */
const ESCAPES: Readonly<Record<string, string>> = {
	'"': '\\"',
	"\\": "\\\\",
	"\b": "\\b",
	"\t": "\\t",
	"\n": "\\n",
	"\f": "\\f",
	"\r": "\\r",
};

/**
 * A TOML basic string on one line. Text that is not Unicode (a lone
 * surrogate) has no TOML spelling at all — a `\ud800` escape is refused by
 * every TOML parser — so it is written as U+FFFD, as a UTF-8 file would
 * hold it anyway.
 */
export function tomlString(text: string): string {
	const escaped = text.toWellFormed().replace(/["\\\u0000-\u001f\u007f]/g, (char) => {
		return ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
	});
	return `"${escaped}"`;
}

/** A key as TOML text: bare when it can be, else a basic string. */
export function tomlKey(key: string): string {
	return BARE_KEY.test(key) ? key : tomlString(key);
}
