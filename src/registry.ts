import { type LooseVerb, subCommandsIn } from "./contract/verb.ts";
import { acceptVerb } from "./verbs/accept/verb.ts";
import { configGetVerb, configSetVerb, configValidateVerb } from "./verbs/config/verb.ts";
import { docsVerb } from "./verbs/docs/verb.ts";
import { doctorVerb } from "./verbs/doctor/verb.ts";
import { doneVerb } from "./verbs/done/verb.ts";
import { helpVerb } from "./verbs/help/verb.ts";
import { impactVerb } from "./verbs/impact/verb.ts";
import { improvementVerb } from "./verbs/improvement/verb.ts";
import { mapVerb } from "./verbs/map/verb.ts";
import { prepareVerb } from "./verbs/prepare/verb.ts";
import { refreshVerb } from "./verbs/refresh/verb.ts";
import { setupVerb, setupVerifyVerb } from "./verbs/setup/verb.ts";
import { standardsPinVerb, standardsVerb } from "./verbs/standards/verb.ts";
import { startVerb } from "./verbs/start/verb.ts";
import { statusVerb } from "./verbs/status/verb.ts";
import { testVerb } from "./verbs/test/verb.ts";
import { uninstallVerb } from "./verbs/uninstall/verb.ts";
import { updateVerb } from "./verbs/update/verb.ts";
import { worktreeDropVerb, worktreeEnsureVerb, worktreeListVerb, worktreePruneVerb, worktreeTeardownVerb } from "./verbs/worktree/verb.ts";

/**
 * The verb registry: the single list the CLI, the MCP server, the published
 * JSON Schemas and the faithfulness tests all iterate. A verb enrolls
 * everywhere with its folder (`src/verbs/<verb>/verb.ts` holds its
 * definition) and one line here, in the order `help` lists them. Schemas
 * load eagerly (they are small); each verb's code loads only when it runs.
 *
 * A sub-command is a verb of its own whose name has two words (`config
 * get`): its own input schema, help, errors and envelope. The first word
 * names its family; it may be a verb too (`setup` and `setup verify`). The
 * CLI's citty command tree (`cli/command-tree.ts`) is projected from here.
 */
export const VERBS = [
	statusVerb,
	startVerb,
	prepareVerb,
	testVerb,
	doneVerb,
	updateVerb,
	acceptVerb,
	impactVerb,
	standardsVerb,
	standardsPinVerb,
	improvementVerb,
	doctorVerb,
	refreshVerb,
	uninstallVerb,
	docsVerb,
	mapVerb,
	setupVerb,
	setupVerifyVerb,
	configGetVerb,
	configSetVerb,
	configValidateVerb,
	worktreeListVerb,
	worktreeTeardownVerb,
	worktreeEnsureVerb,
	worktreeDropVerb,
	worktreePruneVerb,
	helpVerb,
] as const;

export type AnyVerb = (typeof VERBS)[number];
export type VerbName = AnyVerb["name"];

export function findVerb(name: string): AnyVerb | undefined {
	return VERBS.find((verb) => verb.name === name);
}

/** The registry as one loosely typed list, for code that treats every verb alike (projections, tests). */
export const LOOSE_VERBS: readonly LooseVerb[] = VERBS as unknown as readonly LooseVerb[];

/** The sub-commands under a first word (`config` → config get, set, validate), in registry order. */
export function subCommandsOf(family: string): AnyVerb[] {
	return subCommandsIn(VERBS, family);
}
