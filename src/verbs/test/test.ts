import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { innerLoop } from "../../jobs/inner-loop.ts";
import type { TestInput } from "./schema.ts";

/** The test-stage jobs alone. */
export function test(ctx: VerbContext, input: v.InferOutput<typeof TestInput>) {
	return innerLoop(ctx, "test", input);
}
