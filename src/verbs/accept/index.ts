import { existsSync } from "node:fs";
import type { Result } from "../../contract/envelope.ts";
import { accept } from "./accept.ts";
import { renderAccept } from "./render.ts";
import type { AcceptData } from "./schema.ts";

export const verb = {
	run: accept,
	render: renderAccept,
	// Over MCP, once the worktree it held is gone, the agent is back in the main checkout (SPEC §10).
	// Only when the root was the worktree it removed: an agent working in another worktree stays there.
	workingRoot: (result: Result<"accept", AcceptData>, currentRoot: string) =>
		result.data?.worktree_removed && !existsSync(currentRoot) ? result.data.main_path : null,
};
