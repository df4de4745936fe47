import { describe, expect, test } from "bun:test";
import { envelopeErrorCodes, IMPLIED_ERROR_CODES } from "../../src/contract/error-codes.ts";
import { invoke } from "../../src/invoke.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";
import { MODES } from "./modes.ts";

/**
 * Faithfulness: every verb's real core, in each of its modes, returns a
 * result that its registry envelope (Valibot and the exported JSON Schema)
 * accepts. A core that drifts from its advertised shape fails here.
 */

/**
 * Codes a verb declares that no mode (tests/contract/modes.ts) returns, each with why: a
 * condition too costly or too platform-bound to arrange here, and where
 * else it is tested. Keep it short: a mode is better than an excuse.
 */
const NOT_EXERCISED: Readonly<Record<string, readonly string[]>> = {
	// A trunk that is a symbolic ref (tests/proof/proof-integrity.test.ts), a worktree behind its trunk (tests/proof/gate-verbs.test.ts).
	done: ["no_trunk", "behind_trunk"],
	// accept passes on what its `done` run refuses (tests/proof, tests/jobs): a repeated red run, an unwritable state folder, an interrupted gate;
	// `no_project` is `done`'s too; no_trunk: a worktree whose trunk is gone; not_in_worktree: a worktree git no longer lists.
	accept: ["no_project", "no_trunk", "not_in_worktree", "unchanged_tree_rerun", "write_denied", "interrupted"],
	// update: no trunk branch at all (a fresh repository); an unwritable state folder and an interrupted ensure run are the gate runner's (tests/proof, tests/jobs).
	update: ["no_trunk", "write_denied", "interrupted"],
	// worktree drop: a removal whose git is stopped by a signal midway (tests/verbs/worktree.test.ts, "stopped while git removes the folder").
	"worktree drop": ["interrupted"],
};

describe("every verb's core output parses with its registry envelope", () => {
	for (const mode of MODES) {
		test(`${mode.verb}: ${mode.mode}`, async () => {
			const verb = LOOSE_VERBS.find((candidate) => candidate.name === mode.verb);
			if (!verb) throw new Error(`unregistered verb ${mode.verb}`);
			const { ctx, input } = await mode.arrange();
			const module = await verb.load();
			// Through the pipeline the surfaces use: it takes the verb's lock and turns a crash into a result.
			const { result } = await invoke(verb, ctx, input);
			if (!result.ok && !envelopeErrorCodes(verb.errors).includes(result.error)) {
				throw new Error(`${mode.verb} returned \`${result.error}\`, which its definition (src/verbs/${mode.verb}/verb.ts) does not declare`);
			}
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

	test("the modes here return every code a verb declares, or the verb says why not (NOT_EXERCISED)", () => {
		for (const verb of LOOSE_VERBS) {
			const returned = new Set(MODES.filter((mode) => mode.verb === verb.name && mode.error).map((mode) => mode.error));
			const excused = NOT_EXERCISED[verb.name] ?? [];
			for (const code of verb.errors) {
				if (IMPLIED_ERROR_CODES.includes(code as (typeof IMPLIED_ERROR_CODES)[number])) continue;
				expect({ verb: verb.name, code, covered: returned.has(code) || excused.includes(code) }).toEqual({ verb: verb.name, code, covered: true });
			}
			// An excuse goes stale when a mode exercises the code, or the verb stops declaring it.
			for (const code of excused) {
				expect({ verb: verb.name, code, stale: returned.has(code) || !(verb.errors as readonly string[]).includes(code) }).toEqual({
					verb: verb.name,
					code,
					stale: false,
				});
			}
		}
	});

	test("every registered verb has at least a success mode and a non-success mode here", () => {
		for (const verb of LOOSE_VERBS) {
			const modes = MODES.filter((mode) => mode.verb === verb.name);
			expect(modes.some((mode) => mode.expectOk)).toBe(true);
			expect(modes.some((mode) => !mode.expectOk)).toBe(true);
		}
	});
});
