import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { innerLoop } from "../../jobs/inner-loop.ts";
import type { PrepareInput } from "./schema.ts";

/** Formatters (serially), then lint and typecheck: the fast inner loop. */
export function prepare(ctx: VerbContext, input: v.InferOutput<typeof PrepareInput>) {
	return innerLoop(ctx, "prepare", input);
}
