import type { LooseVerb } from "../contract/verb.ts";
import { clip } from "../text/clip.ts";
import { type FlagSpec, flagSpecs } from "../usage/flag-specs.ts";
import { unknownFlag } from "./suggest-flag.ts";

export type ParsedArgs = { ok: true; raw: Record<string, unknown> } | { ok: false; message: string };

/**
 * The words typed after a verb's name, parsed strictly by the flags its
 * input schema declares (`usage/flag-specs.ts`): an unknown flag, a missing
 * value or an extra word is a usage error that names it. Values are left as
 * typed for the schema to judge ("`--timeout` must be a number, got
 * string"), except numbers, which are converted when they look like one.
 */
export function parseVerbArgs(verb: LooseVerb, tokens: readonly string[]): ParsedArgs {
	const specs = flagSpecs(verb);
	const byFlag = new Map<string, FlagSpec>();
	for (const spec of specs) {
		byFlag.set(`--${spec.flag}`, spec);
		if (spec.alias) byFlag.set(`-${spec.alias}`, spec);
	}
	const positionals = specs.filter((spec) => spec.positional);
	const raw: Record<string, unknown> = {};
	let onlyPositionals = false;
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i] ?? "";
		if (!onlyPositionals && token === "--") {
			onlyPositionals = true;
			continue;
		}
		// A negative number (`config set standards.x.limit -3`) is a value, not a flag.
		if (!onlyPositionals && token.startsWith("-") && token !== "-" && !/^-\d/.test(token)) {
			const [name, inline] = splitInline(token);
			const negated = name.startsWith("--no-") ? byFlag.get(`--${name.slice(5)}`) : undefined;
			if (negated?.kind === "boolean" && inline === undefined) {
				raw[negated.key] = false;
				continue;
			}
			const spec = byFlag.get(name);
			if (!spec || spec.positional)
				return {
					ok: false,
					message: unknownFlag(
						name,
						verb.name,
						specs.filter((one) => !one.positional).map((one) => one.flag),
					),
				};
			if (spec.kind === "boolean") {
				if (inline === undefined) raw[spec.key] = true;
				else if (inline === "true" || inline === "false") raw[spec.key] = inline === "true";
				else raw[spec.key] = inline;
				continue;
			}
			const value = inline ?? tokens[++i];
			if (value === undefined) return { ok: false, message: `flag \`${clip(name)}\` needs a value` };
			raw[spec.key] = spec.kind === "number" && value.trim() !== "" && !Number.isNaN(Number(value)) ? Number(value) : value;
			continue;
		}
		const slot = positionals.find((spec) => !(spec.key in raw));
		const rest = verb.cli.rest;
		// The last positional takes every remaining word: joined by spaces (`help config get`), or one item each when it is a list (`standards a b`).
		if (!slot && rest !== undefined && Array.isArray(raw[rest])) {
			(raw[rest] as string[]).push(token);
			continue;
		}
		if (!slot && rest !== undefined && typeof raw[rest] === "string") {
			raw[rest] = `${raw[rest]} ${token}`;
			continue;
		}
		if (!slot) return { ok: false, message: `unexpected argument \`${clip(token)}\` for \`discern ${verb.name}\`` };
		raw[slot.key] = slot.kind === "list" ? [token] : token;
	}
	return { ok: true, raw };
}

function splitInline(token: string): [string, string | undefined] {
	const equals = token.indexOf("=");
	return equals > 0 ? [token.slice(0, equals), token.slice(equals + 1)] : [token, undefined];
}
