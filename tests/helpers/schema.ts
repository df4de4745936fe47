import Ajv2020 from "ajv/dist/2020.js";
import * as v from "valibot";
import { toJsonSchema2020 } from "../../src/contract/json-schema.ts";
import type { LooseVerb } from "../../src/contract/verb.ts";
import { findVerb } from "../../src/registry.ts";

const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/**
 * Check a result two ways: with the verb's Valibot envelope, and with the
 * published JSON Schema (what MCP clients and scripts validate against).
 */
export function expectValidEnvelope(verbName: string, result: unknown): void {
	const verb = findVerb(verbName) as unknown as LooseVerb | undefined;
	if (!verb) throw new Error(`no verb ${verbName}`);
	const parsed = v.safeParse(verb.envelope, result);
	if (!parsed.success) throw new Error(`${verbName} result fails its Valibot envelope: ${v.summarize(parsed.issues)}\n${JSON.stringify(result)}`);
	let validate = compiled.get(verbName);
	if (!validate) {
		validate = ajv.compile(toJsonSchema2020(verb.envelope));
		compiled.set(verbName, validate);
	}
	if (!validate(result)) throw new Error(`${verbName} result fails its JSON Schema: ${ajv.errorsText(validate.errors)}`);
}
