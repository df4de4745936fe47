import type { VerbContext } from "../../contract/context.ts";
import { ref } from "../../contract/refer.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { quoteName } from "../../text/terminal.ts";
import type { AcceptInput } from "./schema.ts";
import type { Target } from "./target.ts";

/** How accept is run again for a target, as its messages and hints say it, and the short sha they print. */
export function short(sha: string | null): string {
	return sha ? sha.slice(0, 7) : "?";
}

/** How to run accept again for this target, from where it ran: `--target` from the main checkout, the MCP `path` given. */
export function againArgs(ctx: VerbContext, here: RepositoryLocation, target: Target, confirmed: boolean): Partial<AcceptInput> {
	return {
		...(confirmed ? { confirmed: true } : {}),
		...(here.location === "main" ? { target: target.branch } : {}),
		...(ctx.surface === "mcp" ? ({ path: ctx.cwd } as Partial<AcceptInput>) : {}),
	};
}

/** Catch up with the trunk: `update` and `done` run in the worktree, wherever accept ran. */
export function catchUpHint(ctx: VerbContext, here: RepositoryLocation, target: Target, confirmed: boolean): string {
	const { say } = ctx;
	const again = ref("accept", againArgs(ctx, here, target, confirmed));
	if (here.location === "main") return say`In the worktree at ${quoteName(target.path)}, run ${ref("update")}, then ${ref("done")}; then run ${again} again.`;
	return say`Run ${ref("update")}, then ${ref("done")}, then ${again}.`;
}
