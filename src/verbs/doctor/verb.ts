import { defineVerb } from "../../contract/verb.ts";
import { DoctorData, DoctorInput } from "./schema.ts";

/** `doctor`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const doctorVerb = defineVerb({
	name: "doctor",
	title: "Doctor: check the install, repository, config and agent wiring",
	summary: "Check the install, the repository, the config and the agent wiring; facts with fixes.",
	mcpDescription:
		"Checks the install, the repository, discern.toml and the agent wiring (it starts the server each configured agent's MCP config names and completes an MCP initialize), each failing check with its fix. Call it when a tool refuses for a reason you cannot resolve (invalid_config, no_project, a git problem) or the user asks whether discern is set up. Read-only. Any failing check makes it checks_failed: relay the fixes; editing the config or the setup is the owner's call. `verbose: true` adds the details of passing checks.",
	mcpGuide: { step: "troubleshoot", text: "discern_doctor explains a broken setup, with a fix for each failing check." },
	group: "Setup and admin",
	input: DoctorInput,
	data: DoctorData,
	errors: ["no_repository", "checks_failed"] as const,
	annotations: "readOnly",
	exposure: { tool: "discern_doctor", project: true },
	cli: { examples: ["discern doctor", "discern doctor --verbose"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
