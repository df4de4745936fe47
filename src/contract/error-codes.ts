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

/**
 * Codes every verb can return without declaring them: every surface can
 * produce them before or around the verb's core. `invalid_arguments` comes
 * from argument parsing (the CLI's flags, an MCP call's arguments) and
 * `internal_error` from the one invocation pipeline when a core throws.
 */
export const IMPLIED_ERROR_CODES = ["invalid_arguments", "internal_error"] as const satisfies readonly ErrorCode[];

/**
 * Codes in the closed list that no verb of this build returns yet: they
 * belong to the verbs still to come, and are kept so that scripts can match
 * on them already. A test fails when a code is neither declared by a verb
 * nor listed here; move a code out of this list when its verb lands.
 */
export const RESERVED_ERROR_CODES = [] as const satisfies readonly ErrorCode[];

/**
 * The codes a verb's envelope admits: the ones it declares plus the implied
 * ones, in the closed list's order (so every published enum reads alike).
 */
export function envelopeErrorCodes(declared: readonly ErrorCode[]): ErrorCode[] {
	const admitted = new Set<ErrorCode>([...IMPLIED_ERROR_CODES, ...declared]);
	return ERROR_CODES.filter((code) => admitted.has(code));
}
