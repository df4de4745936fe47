import { defineVerb } from "../../contract/verb.ts";
import { StatusData, StatusInput } from "./schema.ts";

/** `status`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const statusVerb = defineVerb({
	name: "status",
	title: "Status: what is true now and the next action",
	summary: "What is true now in this checkout, and the one next action.",
	mcpDescription:
		"Call this first, and whenever you are unsure where you stand: the checkout and branch, whether the tree is clean, whether discern.toml is valid and which jobs it declares, whether a Proof covers the current commit, the last gate run, and the one next action (`data.next`). Read-only and fast. A dirty tree or a missing config is reported, not refused; only a `path` outside any git repository is refused (no_repository).",
	mcpResource: { name: "status", title: "Status", description: "Where you are and the next action (discern_status's data)." },
	group: "Daily loop",
	input: StatusInput,
	data: StatusData,
	errors: ["no_repository"] as const,
	annotations: "readOnly",
	exposure: { tool: "discern_status", project: true },
	cli: { examples: ["discern status", "discern status --json"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
