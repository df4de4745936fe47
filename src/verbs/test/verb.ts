import { ref } from "../../contract/refer.ts";
import { defineInnerLoopVerb } from "../../jobs/inner-loop-verb.ts";

/** `test`: the test-stage jobs alone, in its own words (src/jobs/inner-loop-verb.ts builds the rest). The registry lists it. */
export const testVerb = defineInnerLoopVerb({
	name: "test",
	title: "Test: the test-stage jobs",
	summary: "Run the test-stage jobs alone, in parallel.",
	mcpDescription:
		"The project's test-stage jobs alone, in parallel, on the working tree as it is (uncommitted changes included). Call it after discern_prepare passes, before you commit and call discern_done; it never earns a Proof. A failure is gate_failed with `diagnostics`, each naming the command that reproduces it. Refuses with locked while another gate runs in the checkout, no_project without discern.toml. `dry_run: true` returns the plan and runs nothing.",
	mcpGuide: { step: "iterate", text: "discern_test runs the tests, on a dirty tree too." },
	examples: ["discern test", "discern test --dry-run"],
	nothingDeclared: "Declare a test-stage job in discern.toml.",
	// The return type is written out: the registry's types (which `ref` checks against) include this very definition.
	next: (say): string => say`Next: commit, then run ${ref("done")}.`,
});
