import { describe, expect, test } from "bun:test";
import type { AnyResult } from "../../src/contract/envelope.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { MODES } from "./modes.ts";

/**
 * Faithfulness: every verb's real core, in each of its modes, returns a
 * result that its registry envelope (Valibot and the exported JSON Schema)
 * accepts. A core that drifts from its advertised shape fails here.
 */

describe("every verb's core output parses with its registry envelope", () => {
	for (const mode of MODES) {
		test(`${mode.verb}: ${mode.mode}`, async () => {
			const verb = LOOSE_VERBS.find((candidate) => candidate.name === mode.verb);
			if (!verb) throw new Error(`unregistered verb ${mode.verb}`);
			const { ctx, input } = await mode.arrange();
			const module = await verb.load();
			const result = (await module.run(ctx, input)) as AnyResult;
			expectValidEnvelope(mode.verb, result);
			expect(result.verb).toBe(mode.verb);
			expect(result.ok).toBe(mode.expectOk);
			if (!result.ok) {
				expect(result.error).toBe(mode.error as typeof result.error);
				expect(result.hints.length).toBeGreaterThan(0);
			}
			expect(result.dry_run ?? false).toBe(mode.dryRun ?? false);
			if (result.dry_run) {
				expect(result.plan?.length ?? 0).toBeGreaterThan(0);
				expect(result.steps).toBeUndefined();
			}
			// The text projection renders every mode without throwing.
			expect(typeof module.render(result, { color: false, verbose: true })).toBe("string");
		});
	}

	test("every registered verb has at least a success mode and a non-success mode here", () => {
		for (const verb of LOOSE_VERBS) {
			const modes = MODES.filter((mode) => mode.verb === verb.name);
			expect(modes.some((mode) => mode.expectOk)).toBe(true);
			expect(modes.some((mode) => !mode.expectOk)).toBe(true);
		}
	});
});
