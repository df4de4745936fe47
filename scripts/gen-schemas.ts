/**
 * Writes the published JSON Schemas (2020-12) from the Valibot registry:
 *   schema/discern-results.schema.json  every verb's result envelope
 *   schema/discern-config.schema.json   discern.toml, for editors
 * A test fails when the checked-in files differ from what this renders.
 */
import { join } from "node:path";
import { VersionEnvelope } from "../src/cli/version.ts";
import { DiscernConfig } from "../src/config/schema.ts";
import { toJsonSchema2020 } from "../src/contract/json-schema.ts";
import { LOOSE_VERBS } from "../src/registry.ts";

const ROOT = join(import.meta.dir, "..");
const DIALECT = "https://json-schema.org/draft/2020-12/schema";

export const SCHEMA_FILES = {
	results: join(ROOT, "schema/discern-results.schema.json"),
	config: join(ROOT, "schema/discern-config.schema.json"),
} as const;

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
	const { $schema: _dialect, ...rest } = schema;
	return rest;
}

/** A sub-command's definition key: `config get` → `config_get` (a reference's fragment holds no space). */
const defKey = (name: string) => name.replaceAll(" ", "_");

export function renderResultsSchema(): string {
	// `--version --json` answers with an envelope too (verb "version"), though `--version` is a flag, not a verb.
	const envelopes = [...LOOSE_VERBS.map((verb) => [verb.name, verb.envelope] as const), ["version", VersionEnvelope] as const];
	const defs = Object.fromEntries(envelopes.map(([name, envelope]) => [defKey(name), withoutDialect(toJsonSchema2020(envelope))]));
	const schema = {
		$schema: DIALECT,
		$id: "https://discern.sh/schema/discern-results.schema.json",
		title: "discern result envelope",
		description: "What every discern verb returns: printed by --json, returned as MCP structuredContent.",
		type: "object",
		oneOf: envelopes.map(([name]) => ({ $ref: `#/$defs/${defKey(name)}` })),
		$defs: defs,
	};
	return `${JSON.stringify(schema, null, "\t")}\n`;
}

export function renderConfigSchema(): string {
	const schema = {
		$schema: DIALECT,
		$id: "https://discern.sh/schema/discern-config.schema.json",
		title: "discern.toml",
		description: "The discern project configuration. Unknown keys are errors.",
		...withoutDialect(toJsonSchema2020(DiscernConfig)),
	};
	return `${JSON.stringify(schema, null, "\t")}\n`;
}

if (import.meta.main) {
	await Bun.write(SCHEMA_FILES.results, renderResultsSchema());
	await Bun.write(SCHEMA_FILES.config, renderConfigSchema());
	console.log("wrote schema/discern-results.schema.json and schema/discern-config.schema.json");
}
