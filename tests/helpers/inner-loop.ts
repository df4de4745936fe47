import type * as v from "valibot";
import type { VerbContext } from "../../src/contract/context.ts";
import type { InnerLoopInput } from "../../src/jobs/schema.ts";
import { prepareVerb } from "../../src/verbs/prepare/verb.ts";
import { testVerb } from "../../src/verbs/test/verb.ts";

type Input = v.InferOutput<typeof InnerLoopInput>;

/** The core of `prepare`, called directly (outside the pipeline: no lock, no logbook line). */
export async function prepare(ctx: VerbContext, input: Input) {
	return (await prepareVerb.load()).run(ctx, input);
}

/** The core of `test`, called directly. */
export async function test(ctx: VerbContext, input: Input) {
	return (await testVerb.load()).run(ctx, input);
}
