/**
 * The closed list of error codes a result may carry. Adding one is a
 * deliberate act: it changes the published schema, and scripts match on it.
 */
export const ERROR_CODES = [
	"invalid_arguments",
	"unknown_command",
	"no_repository",
	"no_project",
	"invalid_config",
	"not_main_checkout",
	"not_in_worktree",
	"dirty_worktree",
	"detached_head",
	"no_trunk",
	"behind_trunk",
	"trunk_moved",
	"gate_failed",
	"unchanged_tree_rerun",
	"awaiting_consent",
	"conflict",
	"locked",
	"partial_acceptance",
	"unknown_target",
	"unknown_standard",
	"pin_failed",
	"below_min_score",
	"unknown_category",
	"active_worktrees",
	"provisioned_resources",
	"write_denied",
	// `doctor` found at least one failing check: scripts can gate on it.
	"checks_failed",
	// `done` found no runnable job: nothing declared, nothing proven.
	"nothing_to_prove",
	// A gate run was cancelled or interrupted (a signal, an MCP cancel, the client gone): nothing was decided.
	"interrupted",
	"internal_error",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
