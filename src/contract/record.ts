/**
 * Telling the shapes of parsed data apart (JSON, JSONC, TOML, a SARIF log,
 * an MCP message): what `JSON.parse` or a TOML parser gives back is
 * `unknown` until one of these says what it is.
 */

/** An object with named keys: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A TOML table: a record that is not a date (the TOML parsers give dates and times as `Date` objects). */
export function isTable(value: unknown): value is Record<string, unknown> {
	return isRecord(value) && !(value instanceof Date);
}
