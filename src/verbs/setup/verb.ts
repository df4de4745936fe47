import { defineVerb } from "../../contract/verb.ts";
import { SetupData, SetupInput } from "./schema.ts";

/** `setup`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const setupVerb = defineVerb({
	name: "setup",
	title: "Setup: adopt discern in a repository",
	summary: "Detect the stack, propose jobs, and (with --confirmed) write discern.toml and the map skeleton.",
	group: "Setup and admin",
	input: SetupInput,
	data: SetupData,
	errors: ["no_repository", "write_denied"] as const,
	extras: ["plan"],
	annotations: "mutating",
	exposure: { cliOnly: "Adopting discern is the owner's decision, made once at a terminal; agents get a configured project." },
	cli: { positionals: ["action"], examples: ["discern setup", "discern setup verify", "discern setup --confirmed"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
