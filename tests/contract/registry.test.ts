import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ANNOTATIONS } from "../../src/contract/annotations.ts";
import { fail, ok } from "../../src/contract/envelope.ts";
import { ERROR_CODES, IMPLIED_ERROR_CODES, RESERVED_ERROR_CODES } from "../../src/contract/error-codes.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";

describe("the verb registry", () => {
	test("every verb is an MCP tool or CLI-only with a reason", () => {
		for (const verb of LOOSE_VERBS) {
			if ("tool" in verb.exposure) expect(verb.exposure.tool).toBe(`discern_${verb.name}`);
			else expect(verb.exposure.cliOnly.length).toBeGreaterThan(20);
		}
	});

	test("verb names are unique and kebab-free words: a verb, or a family and its sub-command", () => {
		const names = LOOSE_VERBS.map((verb) => verb.name);
		expect(new Set(names).size).toBe(names.length);
		for (const name of names) expect(name).toMatch(/^[a-z]+( [a-z]+)?$/);
	});

	test("input schemas are closed objects", () => {
		for (const verb of LOOSE_VERBS) {
			expect(verb.input.type).toBe("strict_object");
			expect(v.safeParse(verb.input, { surely_not_a_flag: 1 }).success).toBe(false);
		}
	});

	test("positionals and aliases name real input keys", () => {
		for (const verb of LOOSE_VERBS) {
			for (const key of verb.cli.positionals ?? []) expect(Object.keys(verb.input.entries)).toContain(key);
			for (const key of Object.keys(verb.cli.aliases ?? {})) expect(Object.keys(verb.input.entries)).toContain(key);
		}
	});

	test("a verb that declares a lock can refuse with locked; a read-only verb declares none", () => {
		for (const verb of LOOSE_VERBS) {
			if (verb.lock) expect({ verb: verb.name, locked: verb.errors.includes("locked") }).toEqual({ verb: verb.name, locked: true });
			if (verb.annotations === "readOnly") expect({ verb: verb.name, lock: verb.lock }).toEqual({ verb: verb.name, lock: undefined });
		}
	});

	test("a family (the first word of a sub-command) is never also a positional value of its own verb", () => {
		for (const verb of LOOSE_VERBS) {
			const [family, sub] = verb.name.split(" ");
			if (sub === undefined) continue;
			const own = LOOSE_VERBS.find((candidate) => candidate.name === family);
			// `setup verify` must not be read as `setup` with a word: the family's own verb takes no positionals,
			// unless the sub-command's word can never be such a value (discern.toml refuses a standard named `pin`).
			const reserved = own?.name === "standards" && sub === "pin";
			if (own && !reserved) expect({ verb: own.name, positionals: own.cli.positionals ?? [] }).toEqual({ verb: own.name, positionals: [] });
			if (verb.cli.rest) expect(verb.cli.positionals?.at(-1)).toBe(verb.cli.rest);
		}
	});

	test("annotation presets are the named ones", () => {
		for (const verb of LOOSE_VERBS) expect(Object.keys(ANNOTATIONS)).toContain(verb.annotations);
	});
});

describe("the envelope", () => {
	const Status = LOOSE_VERBS.find((verb) => verb.name === "help")?.envelope as v.GenericSchema;

	test("error is forbidden on success and required on failure", () => {
		expect(v.safeParse(Status, { ok: true, verb: "help", message: "m", error: "internal_error" }).success).toBe(false);
		expect(v.safeParse(Status, { ok: false, verb: "help", message: "m", hints: ["h"] }).success).toBe(false);
		expect(v.safeParse(Status, fail("help", "internal_error", "m", ["h"])).success).toBe(true);
	});

	test("a failure must carry at least one hint", () => {
		expect(v.safeParse(Status, { ok: false, verb: "help", message: "m", error: "internal_error", hints: [] }).success).toBe(false);
	});

	test("the verb field is a literal per verb", () => {
		expect(v.safeParse(Status, ok("status", "m", undefined)).success).toBe(false);
	});

	test("error codes are a closed list without duplicates", () => {
		expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
		expect(v.safeParse(Status, { ok: false, verb: "help", message: "m", error: "made_up", hints: ["h"] }).success).toBe(false);
	});
});

describe("error codes belong to verbs", () => {
	const declared = new Set<string>(LOOSE_VERBS.flatMap((verb) => verb.errors));

	test("every code in the closed list is implied, declared by a verb, or reserved for a coming verb", () => {
		const orphans = ERROR_CODES.filter(
			(code) =>
				!(IMPLIED_ERROR_CODES as readonly string[]).includes(code) && !declared.has(code) && !(RESERVED_ERROR_CODES as readonly string[]).includes(code),
		);
		expect(orphans).toEqual([]);
	});

	test("a reserved code is declared by no verb: when its verb lands, it leaves the reserved list", () => {
		expect(RESERVED_ERROR_CODES.filter((code) => declared.has(code))).toEqual([]);
	});

	test("a verb declares each code once and leaves the implied ones implied", () => {
		for (const verb of LOOSE_VERBS) {
			expect(new Set(verb.errors).size).toBe(verb.errors.length);
			expect(verb.errors.filter((code) => (IMPLIED_ERROR_CODES as readonly string[]).includes(code))).toEqual([]);
		}
	});

	test("an envelope refuses a code its verb does not declare, and takes the implied ones", () => {
		const docs = LOOSE_VERBS.find((verb) => verb.name === "docs")?.envelope as v.GenericSchema;
		expect(v.safeParse(docs, fail("docs", "gate_failed", "m", ["h"])).success).toBe(false);
		expect(v.safeParse(docs, fail("docs", "unknown_target", "m", ["h"])).success).toBe(true);
		for (const code of IMPLIED_ERROR_CODES) expect(v.safeParse(docs, fail("docs", code, "m", ["h"])).success).toBe(true);
	});

	test("an envelope has the optional fields its verb fills, and no others", () => {
		const status = LOOSE_VERBS.find((verb) => verb.name === "status")?.envelope as v.GenericSchema;
		const test = LOOSE_VERBS.find((verb) => verb.name === "test")?.envelope as v.GenericSchema;
		const steps = [{ kind: "job", label: "t", outcome: "ok" as const, duration_s: 1 }];
		expect(v.safeParse(status, ok("status", "m", undefined, { steps })).success).toBe(false);
		expect(v.safeParse(test, ok("test", "m", undefined, { steps })).success).toBe(true);
	});
});
