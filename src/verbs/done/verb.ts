import { defineVerb } from "../../contract/verb.ts";
import { DoneData, DoneInput } from "./schema.ts";

/** `done`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const doneVerb = defineVerb({
	name: "done",
	title: "Done: the Gate on the committed tree, and a Proof when green",
	summary: "The Gate: every stage and the changed scopes' gates on the exact committed tree; a Proof when everything is green.",
	group: "Daily loop",
	input: DoneInput,
	data: DoneData,
	annotations: "mutating",
	exposure: { tool: "discern_done", project: true },
	cli: { examples: ["discern done", "discern done --dry-run", "discern done --standalone", "discern done --rerun"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
