import * as v from "valibot";
import { AGENTS, STAGES } from "../../config/schema.ts";

const Agents = v.pipe(v.string(), v.description(`Comma-separated agents to record in [project].agents: ${AGENTS.join(", ")}.`));

export const SetupInput = v.strictObject({
	confirmed: v.optional(v.pipe(v.boolean(), v.description("Write discern.toml and the map skeleton."))),
	dry_run: v.optional(v.pipe(v.boolean(), v.description("Show what would be written; write nothing."))),
	agents: v.optional(Agents),
});

/** `setup verify`: read-only; the proposal and what is already in place. */
export const SetupVerifyInput = v.strictObject({
	agents: v.optional(Agents),
});

export const SetupData = v.strictObject({
	stacks: v.array(v.strictObject({ kind: v.string(), evidence: v.string(), manager: v.optional(v.string()) })),
	jobs: v.array(v.strictObject({ name: v.string(), stage: v.picklist(STAGES), run: v.string(), reason: v.string() })),
	files: v.array(
		v.strictObject({
			path: v.string(),
			action: v.pipe(v.picklist(["create", "keep"]), v.description("`keep`: it exists and setup leaves it alone.")),
		}),
	),
	config_exists: v.boolean(),
	written: v.boolean(),
	config_text: v.pipe(v.string(), v.description("The discern.toml setup proposes (or wrote).")),
});
export type SetupData = v.InferOutput<typeof SetupData>;
