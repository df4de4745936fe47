import type * as v from "valibot";
import { runningBinary } from "../../agents/command.ts";
import { refresh } from "../../agents/refresh.ts";
import type { RefreshInput } from "../../agents/refresh-schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import { renderRefresh } from "./render.ts";

export const verb = {
	// The running binary is read here, at the edge: the core gets it as a value.
	run: (ctx: VerbContext, input: v.InferOutput<typeof RefreshInput>) => refresh(ctx, input, runningBinary()),
	render: renderRefresh,
};
