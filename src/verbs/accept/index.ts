import type { Result } from "../../contract/envelope.ts";
import { accept } from "./accept.ts";
import { renderAccept } from "./render.ts";
import type { AcceptData } from "./schema.ts";

export const verb = {
	run: accept,
	render: renderAccept,
	// Over MCP, once the worktree it held is gone, the agent is back in the main checkout (SPEC §10).
	workingRoot: (result: Result<"accept", AcceptData>) => (result.data?.worktree_removed ? result.data.main_path : null),
};
