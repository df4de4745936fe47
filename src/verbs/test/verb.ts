import { defineVerb } from "../../contract/verb.ts";
import { TestData, TestInput } from "./schema.ts";

/** `test`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const testVerb = defineVerb({
	name: "test",
	title: "Test: the test-stage jobs",
	summary: "Run the test-stage jobs alone, in parallel.",
	mcpDescription:
		"The project's test-stage jobs alone, in parallel, on the working tree as it is (uncommitted changes included). Call it after discern_prepare passes, before you commit and call discern_done; it never earns a Proof. A failure is gate_failed with `diagnostics`, each naming the command that reproduces it. Refuses with locked while another gate runs in the checkout, no_project without discern.toml. `dry_run: true` returns the plan and runs nothing.",
	mcpGuide: { step: "iterate", text: "discern_test runs the tests, on a dirty tree too." },
	group: "Daily loop",
	input: TestInput,
	data: TestData,
	errors: ["no_repository", "no_project", "invalid_config", "locked", "write_denied", "gate_failed", "interrupted"] as const,
	extras: ["plan", "steps", "diagnostics"],
	lock: "checkout",
	annotations: "mutating",
	exposure: { tool: "discern_test", project: true },
	cli: { examples: ["discern test", "discern test --dry-run"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
