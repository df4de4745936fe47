/**
 * `[worktree.setup]` prepares the task worktrees discern starts. The main
 * checkout's installed dependencies are the person's: `npm ci` deletes
 * node_modules before it installs (a linked package, a patched dependency
 * go with it), `uv sync` removes what a person added to .venv. So nothing
 * runs the setup there unless the person asks for it in so many words.
 */
export const MAIN_CHECKOUT_IS_YOURS =
	"the main checkout is yours: discern runs [worktree.setup] only in the task worktrees it starts; run the install yourself when you want it";
