import { defineVerb } from "../../contract/verb.ts";
import { TestData, TestInput } from "./schema.ts";

/** `test`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const testVerb = defineVerb({
	name: "test",
	title: "Test: the test-stage jobs",
	summary: "Run the test-stage jobs alone, in parallel.",
	group: "Daily loop",
	input: TestInput,
	data: TestData,
	annotations: "mutating",
	exposure: { tool: "discern_test", project: true },
	cli: { examples: ["discern test", "discern test --dry-run"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
