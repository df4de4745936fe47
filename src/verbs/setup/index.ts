import type * as v from "valibot";
import { runningBinary } from "../../agents/command.ts";
import type { VerbContext } from "../../contract/context.ts";
import { renderSetup } from "./render.ts";
import type { SetupInput } from "./schema.ts";
import { setup as runSetup } from "./setup.ts";
import { verifySetup } from "./verify.ts";

// The running binary is read here, at the edge: with --agents, setup runs refresh, which writes the command agents start.
export const setup = { run: (ctx: VerbContext, input: v.InferOutput<typeof SetupInput>) => runSetup(ctx, input, runningBinary()), render: renderSetup };
export const verify = { run: verifySetup, render: renderSetup };
