/**
 * Honest MCP tool annotations, as named presets so that each verb states
 * what kind of thing it is rather than four loose booleans.
 * (The SDK keeps `ToolAnnotations` behind a subpath; the shape is small.)
 */
export interface ToolAnnotations {
	readOnlyHint: boolean;
	destructiveHint: boolean;
	idempotentHint: boolean;
	openWorldHint: boolean;
}

export const ANNOTATIONS = {
	/** Reads state, changes nothing, runs no project command. */
	readOnly: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
	/** Runs the project's own commands or writes files; may not be repeatable. */
	mutating: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
	/** Writes, but a second call with the same arguments changes nothing more. */
	mutatingIdempotent: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
	/** Removes or moves something that cannot simply be put back. */
	destructive: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} as const satisfies Record<string, ToolAnnotations>;

export type AnnotationPreset = keyof typeof ANNOTATIONS;
