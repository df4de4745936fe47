import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export type JsonSchema = Record<string, unknown>;

/**
 * The only caller of toJsonSchema: JSON Schema 2020-12, with an object root
 * as MCP requires. A variant (`ok: true | false`) exports as a bare `oneOf`;
 * every branch is an object, so saying so at the root is honest, and what
 * the branches share is said once, at the root (`factorBranches`).
 */
export function toJsonSchema2020(schema: v.GenericSchema): JsonSchema {
	// `finite` has no JSON Schema keyword, and JSON cannot carry Infinity or NaN anyway.
	const json = compact(toJsonSchema(schema, { target: "draft-2020-12", ignoreActions: ["finite"] })) as JsonSchema;
	if (json.type === undefined && Array.isArray(json.oneOf ?? json.anyOf)) {
		const { $schema, ...rest } = json;
		return { $schema, type: "object", ...factorBranches(rest) };
	}
	return json;
}

type ClosedObject = { type: "object"; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };

const FORBIDDEN = { not: {} };

/**
 * A union of closed objects repeats every shared property in each branch:
 * for an envelope, its `data`, `steps` and `diagnostics` twice over. Said
 * once instead, without `$ref`: one closed object at the root holds each
 * property that is the same in every branch (and `{}` for the others), and
 * the branches keep only what tells them apart: the properties that differ,
 * a property another branch lacks forbidden, the extra required keys. It
 * accepts exactly what the union did. Anything else is returned unchanged.
 */
export function factorBranches(schema: JsonSchema): JsonSchema {
	const keyword = Array.isArray(schema.oneOf) ? "oneOf" : "anyOf";
	const branches = schema[keyword];
	if (!Array.isArray(branches) || branches.length < 2 || !branches.every(isClosedObject)) return schema;
	if (Object.keys(schema).some((key) => key !== keyword && key !== "type")) return schema;
	// The fullest branch sets the order of the properties.
	const ordered = [...branches].sort((a, b) => Object.keys(b.properties).length - Object.keys(a.properties).length);
	const keys = [...new Set(ordered.flatMap((branch) => Object.keys(branch.properties)))];
	const shared: Record<string, unknown> = {};
	const own = branches.map(() => ({}) as Record<string, unknown>);
	for (const key of keys) {
		const variants = branches.map((branch) => branch.properties[key] as JsonSchema | undefined);
		const present = variants.filter((variant) => variant !== undefined);
		// Said the same wherever it is allowed: once at the root; a branch without it forbids it.
		if (present.every((variant) => JSON.stringify(variant) === JSON.stringify(present[0]))) {
			shared[key] = present[0];
			variants.forEach((variant, index) => {
				if (variant === undefined) (own[index] as Record<string, unknown>)[key] = FORBIDDEN;
			});
			continue;
		}
		// Otherwise the keywords every branch gives alike go to the root, and each branch keeps the rest.
		const common = present.length === variants.length ? commonKeywords(present) : {};
		shared[key] = common;
		variants.forEach((variant, index) => {
			const rest = variant === undefined ? FORBIDDEN : Object.fromEntries(Object.entries(variant).filter(([keyword]) => !(keyword in common)));
			if (Object.keys(rest).length > 0) (own[index] as Record<string, unknown>)[key] = rest;
		});
	}
	const requiredEverywhere = keys.filter((key) => branches.every((branch) => branch.required?.includes(key)));
	return {
		type: "object",
		properties: shared,
		...(requiredEverywhere.length > 0 ? { required: requiredEverywhere } : {}),
		additionalProperties: false,
		[keyword]: branches.map((branch, index) => {
			const extra = (branch.required ?? []).filter((key) => !requiredEverywhere.includes(key));
			return { properties: own[index], ...(extra.length > 0 ? { required: extra } : {}) };
		}),
	};
}

/** The keywords with the same value in every schema. */
function commonKeywords(schemas: readonly JsonSchema[]): JsonSchema {
	const [first, ...others] = schemas;
	if (!first) return {};
	return Object.fromEntries(
		Object.entries(first).filter(([keyword, value]) => others.every((other) => keyword in other && JSON.stringify(other[keyword]) === JSON.stringify(value))),
	);
}

function isClosedObject(value: unknown): value is ClosedObject {
	if (typeof value !== "object" || value === null) return false;
	const schema = value as Record<string, unknown>;
	const known = new Set(["type", "properties", "required", "additionalProperties"]);
	return (
		schema.type === "object" &&
		typeof schema.properties === "object" &&
		schema.properties !== null &&
		schema.additionalProperties === false &&
		Object.keys(schema).every((key) => known.has(key))
	);
}

/**
 * The same constraints in fewer words, everywhere in a schema: an `enum` of
 * strings needs no `"type": "string"` beside it, and a nullable value is
 * `"type": ["string", "null"]` (or its `enum` with `null`), not an `anyOf`
 * of two schemas. Descriptions and every other keyword stay as they are.
 */
export function compact(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(compact);
	if (typeof value !== "object" || value === null) return value;
	const schema = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, compact(inner)])) as JsonSchema;
	if (schema.type === "string" && Array.isArray(schema.enum) && schema.enum.every((item) => typeof item === "string")) delete schema.type;
	const options = schema.anyOf;
	if (Array.isArray(options) && options.length === 2) {
		const nullIndex = options.findIndex((option) => isOnly(option, { type: "null" }));
		const other = options[1 - nullIndex] as JsonSchema | undefined;
		if (nullIndex >= 0 && other) {
			const merged = nullable(other);
			if (merged) {
				const { anyOf: _anyOf, ...rest } = schema;
				return { ...merged, ...rest };
			}
		}
	}
	return schema;
}

/** `schema` or null, as one schema, when that can be said without `anyOf`. */
function nullable(schema: JsonSchema): JsonSchema | null {
	const keys = Object.keys(schema);
	if (keys.length === 1 && typeof schema.type === "string" && schema.type !== "object" && schema.type !== "array") return { type: [schema.type, "null"] };
	if (keys.length === 1 && Array.isArray(schema.enum)) return { enum: [...schema.enum, null] };
	return null;
}

function isOnly(value: unknown, expected: JsonSchema): boolean {
	return JSON.stringify(value) === JSON.stringify(expected);
}
