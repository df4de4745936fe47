import { defineVerb } from "../../contract/verb.ts";
import { ConfigData, ConfigInput } from "./schema.ts";

/** `config`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const configVerb = defineVerb({
	name: "config",
	title: "Config: validate, read and edit discern.toml",
	summary: "Validate discern.toml, read one key (`config get KEY`), or set one keeping comments and layout (`config set KEY VALUE`).",
	group: "Setup and admin",
	input: ConfigInput,
	data: ConfigData,
	errors: ["no_repository", "no_project", "invalid_config", "locked", "write_denied"] as const,
	extras: ["plan"],
	annotations: "mutating",
	exposure: { cliOnly: "Agents read the config through the `discern://config` resource; editing it is a person's call." },
	cli: {
		positionals: ["action", "key", "value"],
		examples: ["discern config validate", "discern config get gate.timeout", "discern config set gate.timeout 900", 'discern config set jobs.lint "npm run lint"'],
	},
	load: () => import("./index.ts").then((module) => module.verb),
});
