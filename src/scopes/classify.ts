import type { ScopeClassifier } from "./glob.ts";

/** The marker that follows the touched scopes when a path outside every neutral scope changed; no scope may take the name. */
export const CODE_MARKER = "code";

/** A name no real path ends in: `path/<probe>` asks "does a scope cover what is inside `path`?". */
const FOLDER_PROBE = "\u0000";

export interface Classification {
	/** Touched scope names, in declaration order. */
	touched: string[];
	/** Some changed path is not covered by any neutral scope: real code changed. */
	code: boolean;
	/** Changed paths per scope (every scope, zero included). */
	counts: Record<string, number>;
}

/**
 * Which scopes the changed paths touch. Fails open: when the change list is
 * incomplete, every scope counts as touched and `code` is true, because
 * "git could not say" must never read as "nothing changed here".
 * Counts stay the honest numbers from the paths that were seen.
 */
export function classify(paths: readonly string[], classifier: ScopeClassifier, complete: boolean): Classification {
	const { scopes } = classifier;
	const tallies = new Array<number>(scopes.length).fill(0);
	let code = false;
	for (const path of paths) {
		let neutral = false;
		const own = classifier.scopesOf(path);
		for (const index of own) if (scopes[index]?.neutral) neutral = true;
		// A submodule changes as one path (`vendor/lib`) standing for everything inside it, so a scope
		// covering its contents (`vendor/lib/**`) is touched too. Touching more scopes only runs more
		// gates; whether the path is neutral is still decided by its own matches.
		const inside = classifier.scopesOf(`${path}/${FOLDER_PROBE}`);
		for (const index of new Set([...own, ...inside])) tallies[index] = (tallies[index] ?? 0) + 1;
		if (!neutral) code = true;
	}
	const counts: Record<string, number> = {};
	scopes.forEach((scope, index) => {
		counts[scope.name] = tallies[index] ?? 0;
	});
	if (!complete) return { touched: scopes.map((scope) => scope.name), code: true, counts };
	return { touched: scopes.filter((_, index) => (tallies[index] ?? 0) > 0).map((scope) => scope.name), code, counts };
}
