import type { ScopeClassifier } from "./glob.ts";

/** The marker that follows the touched scopes when a path outside every neutral scope changed; no scope may take the name. */
export const CODE_MARKER = "code";

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
export function classify(paths: readonly string[], classifier: ScopeClassifier, complete: boolean, submodules: readonly string[] = []): Classification {
	const { scopes } = classifier;
	const tallies = new Array<number>(scopes.length).fill(0);
	let code = false;
	for (const path of paths) {
		let neutral = false;
		const own = classifier.scopesOf(path);
		for (const index of own) if (scopes[index]?.neutral) neutral = true;
		for (const index of own) tallies[index] = (tallies[index] ?? 0) + 1;
		if (!neutral) code = true;
	}
	const counts: Record<string, number> = {};
	scopes.forEach((scope, index) => {
		counts[scope.name] = tallies[index] ?? 0;
	});
	// A submodule that changed stands for every path inside it, which this list does not hold: any scope may be touched.
	if (!complete || submodules.length > 0) return { touched: scopes.map((scope) => scope.name), code: true, counts };
	return { touched: scopes.filter((_, index) => (tallies[index] ?? 0) > 0).map((scope) => scope.name), code, counts };
}
