import type { DiscernConfig } from "../../config/schema.ts";
import type { Trunk } from "../../git/trunk.ts";
import { changedPaths } from "../../scopes/changed.ts";
import { classify } from "../../scopes/classify.ts";
import { compileScopes } from "../../scopes/glob.ts";

/** The configured scopes this branch and tree touch (every scope when git cannot tell: fail open). */
export async function scopesTouched(root: string, trunk: Trunk, config: DiscernConfig): Promise<{ touched: string[]; complete: boolean }> {
	if (Object.keys(config.scopes).length === 0) return { touched: [], complete: true };
	// A full ref: a tag with the trunk's name must not be taken for it.
	const changed = await changedPaths(root, trunk.exists && trunk.name ? `refs/heads/${trunk.name}` : null);
	const classified = classify(changed.paths, compileScopes(config.scopes), changed.complete);
	return { touched: classified.touched, complete: changed.complete };
}
