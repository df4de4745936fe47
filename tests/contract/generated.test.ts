import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import { ENVELOPE_PAGE, MANUAL_MODULE, README, renderManualModule, withCodesByVerb, withToolList } from "../../scripts/gen-manual.ts";
import { renderConfigSchema, renderResultsSchema, SCHEMA_FILES } from "../../scripts/gen-schemas.ts";
import { parseConfig } from "../../src/config/load.ts";
import { fail } from "../../src/contract/envelope.ts";
import { toolEntries } from "../../src/mcp/tools.ts";

/** Checked-in generated files must equal what the generators write now. */
describe("generated files do not drift", () => {
	test("schema/discern-results.schema.json", async () => {
		expect(await Bun.file(SCHEMA_FILES.results).text()).toBe(renderResultsSchema());
	});
	test("schema/discern-config.schema.json", async () => {
		expect(await Bun.file(SCHEMA_FILES.config).text()).toBe(renderConfigSchema());
	});
	test("src/pages/manual.generated.ts covers every page in docs/", async () => {
		expect(await Bun.file(MANUAL_MODULE).text()).toBe(await renderManualModule());
		// The manual's table of codes by verb is the registry's own (npm run generate writes it).
		const envelopePage = await Bun.file(ENVELOPE_PAGE).text();
		expect(envelopePage).toBe(withCodesByVerb(envelopePage));
	});
	test("README.md names every MCP tool the server lists, and no other", async () => {
		const readme = await Bun.file(README).text();
		expect(readme).toBe(withToolList(readme));
		const named = [...readme.matchAll(/`(discern_[a-z_]+)`/g)].map((match) => match[1]);
		expect(new Set(named)).toEqual(new Set(toolEntries().keys()));
	});
});

describe("the published schemas are usable JSON Schema 2020-12", () => {
	const ajv = new Ajv2020({ strict: false });

	test("the results schema accepts a real envelope and rejects a malformed one", () => {
		const validate = ajv.compile(JSON.parse(renderResultsSchema()));
		expect(validate(fail("status", "no_repository", "m", ["h"]))).toBe(true);
		expect(validate({ ok: true, verb: "status", message: "m", error: "no_repository" })).toBe(false);
		expect(validate({ ok: true, verb: "nonsense", message: "m" })).toBe(false);
	});

	test("the config schema agrees with the parser on valid and invalid files", () => {
		const validate = ajv.compile(JSON.parse(renderConfigSchema()));
		const good = parseConfig('[jobs]\ntest = "bun test"\n[jobs.e2e]\nstage = "test"\nrun = ["a", "b"]\n');
		expect(good.ok).toBe(true);
		expect(validate({ jobs: { test: "bun test", e2e: { stage: "test", run: ["a", "b"] } } })).toBe(true);
		expect(validate({ gate: { timout: 1 } })).toBe(false);
		expect(validate({ gate: { timeout: "1" } })).toBe(false);
	});
});

describe("each tool's outputSchema: lean, closed, and as strict as its envelope", () => {
	const ajv = new Ajv2020({ strict: false });
	for (const entry of toolEntries().values()) {
		const schema = entry.listing.outputSchema;
		const verb = entry.verb.name;
		test(`${entry.name}: 2020-12, an object root, no $ref, only its verb's codes`, () => {
			expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
			expect(schema.type).toBe("object");
			expect(JSON.stringify(schema)).not.toContain("$ref");
			const validate = ajv.compile(schema);
			expect(validate(fail(verb, "internal_error", "m", ["h"]))).toBe(true);
			expect(validate({ ok: true, verb, message: "m" })).toBe(true);
			expect(validate({ ok: true, verb, message: "m", error: "internal_error" })).toBe(false);
			expect(validate({ ok: false, verb, message: "m", error: "internal_error" })).toBe(false);
			expect(validate({ ok: false, verb, message: "m", error: "internal_error", hints: [] })).toBe(false);
			expect(validate({ ok: true, verb, message: "m", surely_not_a_field: 1 })).toBe(false);
			expect(validate({ ok: "yes", verb, message: "m" })).toBe(false);
			const foreign = ["unknown_command", "checks_failed"].find((code) => !(entry.verb.errors as readonly string[]).includes(code)) ?? "";
			expect(validate(fail(verb, foreign as "internal_error", "m", ["h"]))).toBe(false);
		});
	}
});
