import { defineVerb } from "../../contract/verb.ts";
import { ConfigData, ConfigGetInput, ConfigSetInput, ConfigValidateInput } from "./schema.ts";

/**
 * `config validate`, `config get` and `config set`: three sub-commands, each
 * with its own input, help and errors. The registry (src/registry.ts) lists
 * them; their code loads only when one runs.
 */
const CLI_ONLY = { cliOnly: "Agents read the config through the `discern://config` resource; editing it is a person's call." } as const;
const READ_ERRORS = ["no_repository", "no_project", "invalid_config"] as const;

export const configValidateVerb = defineVerb({
	name: "config validate",
	title: "Config: validate discern.toml",
	summary: "Check every rule of discern.toml; each problem with its line. Valid: the effective values, defaults applied.",
	mcpResource: {
		name: "config",
		title: "Config",
		description: "discern.toml as discern reads it: validity, problems with lines, and the effective values.",
	},
	group: "Setup and admin",
	input: ConfigValidateInput,
	data: ConfigData,
	errors: READ_ERRORS,
	annotations: "readOnly",
	exposure: CLI_ONLY,
	cli: { examples: ["discern config validate"] },
	load: () => import("./index.ts").then((module) => module.validate),
});

export const configGetVerb = defineVerb({
	name: "config get",
	title: "Config: read one key",
	summary: "Read one key of discern.toml, defaults applied (`config get gate.timeout`).",
	group: "Setup and admin",
	input: ConfigGetInput,
	data: ConfigData,
	errors: READ_ERRORS,
	annotations: "readOnly",
	exposure: CLI_ONLY,
	cli: { positionals: ["key"], examples: ["discern config get gate.timeout", "discern config get jobs"] },
	load: () => import("./index.ts").then((module) => module.get),
});

export const configSetVerb = defineVerb({
	name: "config set",
	title: "Config: set one key",
	summary: "Set one key of discern.toml, keeping its comments and layout; written only if the file stays valid.",
	group: "Setup and admin",
	input: ConfigSetInput,
	data: ConfigData,
	errors: [...READ_ERRORS, "locked", "write_denied"] as const,
	extras: ["plan"],
	lock: "checkout",
	annotations: "mutating",
	exposure: CLI_ONLY,
	cli: {
		positionals: ["key", "value"],
		examples: ["discern config set gate.timeout 900", 'discern config set jobs.lint "npm run lint"', "discern config set gate.timeout 900 --dry-run"],
	},
	load: () => import("./index.ts").then((module) => module.set),
});
