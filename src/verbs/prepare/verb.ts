import { ref } from "../../contract/refer.ts";
import { defineInnerLoopVerb } from "../../jobs/inner-loop-verb.ts";

/** `prepare`: the inner loop's first half, in its own words (src/jobs/inner-loop-verb.ts builds the rest). The registry lists it. */
export const prepareVerb = defineInnerLoopVerb({
	name: "prepare",
	title: "Prepare: formatters, then lint and typecheck",
	summary: "The fast inner loop: fix-stage jobs one at a time, then check-stage jobs in parallel. No build, no tests, no Proof.",
	mcpDescription:
		"The inner loop's first half: the project's fix-stage jobs (formatters) one at a time, then its check-stage jobs (lint, typecheck) in parallel. Call it after each change, before discern_test; it runs on a dirty tree and never earns a Proof. Formatters may edit files (`data.modified`): review and commit them. A failure is gate_failed with `diagnostics`, each naming the command that reproduces it. Refuses with locked while another gate runs in the checkout, no_project without discern.toml. `dry_run: true` returns the plan and runs nothing.",
	mcpGuide: { step: "iterate", text: "Iterate with discern_prepare (formatters, then lint and typecheck), on a dirty tree." },
	examples: ["discern prepare", "discern prepare --dry-run"],
	nothingDeclared: "Declare fix or check jobs in discern.toml.",
	// The return type is written out: the registry's types (which `ref` checks against) include this very definition.
	next: (say): string => say`Next: ${ref("test")}, then commit and run ${ref("done")}.`,
});
