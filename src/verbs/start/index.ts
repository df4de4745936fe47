import type * as v from "valibot";
import { runningBinary } from "../../agents/command.ts";
import type { VerbContext } from "../../contract/context.ts";
import type { Result } from "../../contract/envelope.ts";
import { randomTail } from "../../worktree/id.ts";
import { renderStart } from "./render.ts";
import type { StartData, StartInput } from "./schema.ts";
import { start } from "./start.ts";

export const verb = {
	// The running binary is read here, at the edge: the new worktree's agent wiring names the command agents start.
	run: (ctx: VerbContext, input: v.InferOutput<typeof StartInput>) => start(ctx, input, { tail: randomTail, running: runningBinary() }),
	render: renderStart,
	// Over MCP the agent works in the new worktree from now on (SPEC §10).
	workingRoot: (result: Result<"start", StartData>) => (result.ok && !result.dry_run && result.data ? result.data.path : null),
};
