import { defineVerb } from "../../contract/verb.ts";
import { StatusData, StatusInput } from "./schema.ts";

/** `status`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const statusVerb = defineVerb({
	name: "status",
	title: "Status: what is true now and the next action",
	summary: "What is true now in this checkout, and the one next action.",
	group: "Daily loop",
	input: StatusInput,
	data: StatusData,
	annotations: "readOnly",
	exposure: { tool: "discern_status", project: true },
	cli: { examples: ["discern status", "discern status --json"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
