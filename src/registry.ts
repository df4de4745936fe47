import { statusVerb } from "./verbs/status/verb.ts";
import { prepareVerb } from "./verbs/prepare/verb.ts";
import { testVerb } from "./verbs/test/verb.ts";
import { doneVerb } from "./verbs/done/verb.ts";
import { impactVerb } from "./verbs/impact/verb.ts";
import { doctorVerb } from "./verbs/doctor/verb.ts";
import { docsVerb } from "./verbs/docs/verb.ts";
import { setupVerb } from "./verbs/setup/verb.ts";
import { configVerb } from "./verbs/config/verb.ts";
import { helpVerb } from "./verbs/help/verb.ts";
import type { LooseVerb } from "./contract/verb.ts";

/**
 * The verb registry: the single list the CLI, the MCP server, the published
 * JSON Schemas and the faithfulness tests all iterate. A verb enrolls
 * everywhere with its folder (`src/verbs/<verb>/verb.ts` holds its
 * definition) and one line here, in the order `help` lists them. Schemas
 * load eagerly (they are small); each verb's code loads only when it runs.
 */
export const VERBS = [
	statusVerb,
	prepareVerb,
	testVerb,
	doneVerb,
	impactVerb,
	doctorVerb,
	docsVerb,
	setupVerb,
	configVerb,
	helpVerb,
] as const;

export type AnyVerb = (typeof VERBS)[number];
export type VerbName = AnyVerb["name"];

export function findVerb(name: string): AnyVerb | undefined {
	return VERBS.find((verb) => verb.name === name);
}

/** The registry as one loosely typed list, for code that treats every verb alike (projections, tests). */
export const LOOSE_VERBS: readonly LooseVerb[] = VERBS as unknown as readonly LooseVerb[];
