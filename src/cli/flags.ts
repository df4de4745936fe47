import type * as v from "valibot";
import { unwrapSchema } from "../contract/schema-walk.ts";
import type { LooseVerb } from "../contract/verb.ts";
import { clip } from "../text/clip.ts";
import { unknownFlag } from "./suggest-flag.ts";

/**
 * A verb's CLI flags, derived from its Valibot input schema: the schema is
 * the single description of what a verb accepts, on every surface.
 */
export type FlagKind = "boolean" | "string" | "number" | "enum" | "list";

export interface FlagSpec {
	/** Input key, e.g. `dry_run`. */
	key: string;
	/** Flag spelling, e.g. `dry-run`. */
	flag: string;
	kind: FlagKind;
	options?: readonly string[];
	description: string;
	alias?: string;
	/** Filled from a positional word rather than a `--flag`. */
	positional: boolean;
	required: boolean;
}

type AnySchema = v.GenericSchema & { type: string; wrapped?: AnySchema; pipe?: AnySchema[]; options?: readonly unknown[] };

export function flagSpecs(verb: LooseVerb): FlagSpec[] {
	const positionals = verb.cli.positionals ?? [];
	return Object.entries(verb.input.entries).map(([key, schema]) => {
		const { base, description, required } = inspect(schema as AnySchema);
		const alias = verb.cli.aliases?.[key];
		const kind: FlagKind =
			base.type === "boolean" ? "boolean" : base.type === "number" ? "number" : base.type === "picklist" ? "enum" : base.type === "array" ? "list" : "string";
		return {
			key,
			flag: key.replaceAll("_", "-"),
			kind,
			...(kind === "enum" ? { options: (base.options ?? []).map(String) } : {}),
			description,
			...(alias ? { alias } : {}),
			positional: positionals.includes(key),
			required,
		};
	});
}

function inspect(schema: AnySchema): { base: AnySchema; description: string; required: boolean } {
	let description = "";
	let required = true;
	const base = unwrapSchema(schema, (layer) => {
		if (layer.type === "optional") required = false;
		for (const item of layer.pipe ?? []) {
			if (item.type === "description") description = (item as unknown as { description: string }).description;
		}
	});
	return { base: base as AnySchema, description, required };
}

export type ParsedArgs = { ok: true; raw: Record<string, unknown> } | { ok: false; message: string };

/**
 * Strict parsing: an unknown flag, a missing value or an extra word is a
 * usage error that names it. Values are left as typed for the schema to
 * judge ("`--timeout` must be a number, got string"), except numbers, which
 * are converted when they look like one.
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
