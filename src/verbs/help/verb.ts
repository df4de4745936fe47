import { defineVerb } from "../../contract/verb.ts";
import { HelpData, HelpInput } from "./schema.ts";

/** `help`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const helpVerb = defineVerb({
	name: "help",
	title: "Help",
	summary: "Grouped help, or one verb's flags and arguments.",
	group: "Setup and admin",
	input: HelpInput,
	data: HelpData,
	errors: ["unknown_command"] as const,
	worksAnywhere: true,
	annotations: "readOnly",
	exposure: { cliOnly: "MCP clients discover tools through tools/list and the server instructions." },
	cli: { positionals: ["verb"], rest: "verb", examples: ["discern help", "discern help status", "discern help config", "discern help config set"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
