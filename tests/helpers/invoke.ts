import type { VerbContext } from "../../src/contract/context.ts";
import type { AnyResult } from "../../src/contract/envelope.ts";
import type { LooseVerb } from "../../src/contract/verb.ts";
import { invoke } from "../../src/invoke.ts";
import { findVerb, type VerbName } from "../../src/registry.ts";

/** Run a verb through the pipeline both surfaces use (its declared lock, the logbook, the crash guard). */
export async function invokeVerb(name: VerbName, ctx: Omit<VerbContext, "repository">, input: unknown = {}): Promise<AnyResult> {
	const verb = findVerb(name) as unknown as LooseVerb | undefined;
	if (!verb) throw new Error(`unregistered verb ${name}`);
	return (await invoke(verb, ctx, input)).result;
}
