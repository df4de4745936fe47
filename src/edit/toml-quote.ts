/**
 * Writing a string or a key as TOML text, per the TOML spec: a basic string
 * escapes `"`, `\` and every control character but tab (U+0000–U+0008,
 * U+000A–U+001F, U+007F); a key is bare when it is only `A-Za-z0-9_-`, else
 * such a string.
 */

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * A TOML basic string on one line. JSON's escapes are TOML's (`\b \t \n \f \r
 * \" \\ \uXXXX`), except that TOML also forbids a raw DEL. Text that is not
 * Unicode (a lone surrogate) has no TOML spelling at all — a `\ud800` escape is
 * refused by every TOML parser — so it is written as U+FFFD, as smol-toml
 * writes every string.
 */
export function tomlString(text: string): string {
	return JSON.stringify(text.toWellFormed()).replaceAll("\x7f", "\\u007f");
}

/** A key as TOML text: bare when it can be, else a basic string. */
export function tomlKey(key: string): string {
	return BARE_KEY.test(key) ? key : tomlString(key);
}
