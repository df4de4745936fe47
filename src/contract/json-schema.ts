import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export type JsonSchema = Record<string, unknown>;

/**
 * The only caller of toJsonSchema: JSON Schema 2020-12, with an object root
 * as MCP requires. A variant (`ok: true | false`) exports as a bare `oneOf`;
 * every branch is an object, so saying so at the root is honest.
 */
export function toJsonSchema2020(schema: v.GenericSchema): JsonSchema {
	// `finite` has no JSON Schema keyword, and JSON cannot carry Infinity or NaN anyway.
	const json = toJsonSchema(schema, { target: "draft-2020-12", ignoreActions: ["finite"] }) as JsonSchema;
	if (json.type === undefined && Array.isArray(json.oneOf ?? json.anyOf)) {
		const { $schema, ...rest } = json;
		return { $schema, type: "object", ...rest };
	}
	return json;
}
