import { defineVerb } from "../../contract/verb.ts";
import { DoctorData, DoctorInput } from "./schema.ts";

/** `doctor`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const doctorVerb = defineVerb({
	name: "doctor",
	title: "Doctor: check the install, repository, config and agent wiring",
	summary: "Check the install, the repository, the config and the agent wiring; facts with fixes.",
	group: "Setup and admin",
	input: DoctorInput,
	data: DoctorData,
	annotations: "readOnly",
	exposure: { tool: "discern_doctor", project: true },
	cli: { examples: ["discern doctor", "discern doctor --verbose"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
