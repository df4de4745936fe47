import { parse, stringify } from "smol-toml";
import { isTable } from "../../contract/record.ts";
import { tomlKey, tomlString } from "../../edit/toml-quote.ts";
import { firstLineOfError } from "../../text/first-line.ts";

/**
 * The TOML text for the words a person typed after `config set KEY`, and
 * what kind of value they were. The edit itself is src/edit/toml.ts.
 */
export type ValueText =
	| { kind: "string" | "scalar" | "structured"; text: string }
	/** Words written as an inline table that is not valid TOML: never taken as a string. */
	| { kind: "invalid"; reason: string };

/**
 * When the input is one TOML value it is written back out from what was
 * parsed, on one line (so a trailing comment or a second line can never
 * ride along): a table as an inline table, an array as an array. Other
 * words are a string — except words that are plainly an inline table
 * (`{ run = "x" }`) that does not parse: storing those as a string would
 * turn a typo into a job that runs `{`.
 */
export function tomlValue(input: string): ValueText {
	if (!/[\r\n]/.test(input)) {
		try {
			const parsed = parse(`v = ${input}`);
			if (Object.keys(parsed).length === 1 && "v" in parsed) {
				const kind = typeof parsed.v === "string" ? "string" : isTable(parsed.v) || Array.isArray(parsed.v) ? "structured" : "scalar";
				return { kind, text: inlineValue(parsed.v) };
			}
		} catch (error) {
			if (looksLikeInlineTable(input)) {
				return {
					kind: "invalid",
					reason: `\`${input.trim()}\` is not a valid TOML inline table (${firstLineOfError(error)})`,
				};
			}
		}
	}
	return { kind: "string", text: tomlString(input) };
}

/**
 * `{ key = … }` — and not a shell group (`{ make; }`), the one command that
 * also starts with a brace: a group ends its last command with `;` or `&`.
 */
function looksLikeInlineTable(input: string): boolean {
	const trimmed = input.trim();
	return /^\{[\s\S]*\}$/.test(trimmed) && /^\{\s*(?:\}|[A-Za-z0-9_"'-][^=]*=)/.test(trimmed) && !/[;&]\s*\}$/.test(trimmed);
}

/** One TOML value on one line: tables become inline tables, so the edit stays on its line. */
function inlineValue(value: unknown): string {
	if (Array.isArray(value)) return value.length === 0 ? "[]" : `[ ${value.map(inlineValue).join(", ")} ]`;
	if (isTable(value)) {
		const entries = Object.entries(value).map(([key, item]) => `${tomlKey(key)} = ${inlineValue(item)}`);
		return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
	}
	// Strings are quoted as every other string discern writes into TOML (edit/toml-quote.ts), wherever they sit.
	if (typeof value === "string") return tomlString(value);
	return stringify({ v: value }).replace(/^v = /, "").trim();
}
